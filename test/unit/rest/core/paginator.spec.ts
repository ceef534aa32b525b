import {
  DEFAULT_PAGINATOR_OPTIONS,
  Page,
  PageRequest,
  Paginator,
  PaginatorOptions,
} from '../../../../src/rest/core/paginator';

/** The request for page `page` of `pageSize` records (30, the demo page size, if not given). */
const paged = (page: number, pageSize = 30): PageRequest => ({ all: false, page, pageSize });

const paginator = (options: Partial<PaginatorOptions> = {}) =>
  new Paginator({ ...DEFAULT_PAGINATOR_OPTIONS, ...options });

/** The paginator of the demo collections: defaults with a page size of 30. */
const demo = paginator({ pageSize: 30 });

const rows = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ id: from + i }));

describe('DEFAULT_PAGINATOR_OPTIONS', () => {
  it('should default to pages of 20, params page and page_size, a cap of 40 and a count', () => {
    expect(DEFAULT_PAGINATOR_OPTIONS).toStrictEqual({
      pageSize: 20,
      pageQueryParam: 'page',
      pageSizeQueryParam: 'page_size',
      maxPageSize: 40,
      pageTotalCount: true,
    });
  });

  it('should be frozen so no module can change the defaults of another', () => {
    expect(Object.isFrozen(DEFAULT_PAGINATOR_OPTIONS)).toBe(true);
  });
});

describe('Paginator.request', () => {
  describe('page', () => {
    it('should serve page 1 when page is absent', () => {
      expect(paginator().request({})).toStrictEqual(paged(1, 20));
    });

    it.each(['abc', '', '0', '-1', '-5', 'NaN', 'Infinity', '00'])(
      'should serve page 1 when page is %j',
      (page) => {
        expect(paginator().request({ page })).toStrictEqual(paged(1, 20));
      },
    );

    it.each([
      ['the requested page', '3', 3],
      ['a page past the end, to be answered with an empty page', '999', 999],
      ['10^12 for a page number above it: past the end, not page 1', '10000000000000', 1e12],
      ['10^12 for a page number of 400 digits', '9'.repeat(400), 1e12],
      ['the last of repeated page parameters', ['2', '4'], 4],
    ])('should serve %s (page=%j)', (_, page, served) => {
      expect(demo.request({ page })).toStrictEqual(paged(served, 30));
    });

    it('should read the page from a custom page query parameter only', () => {
      const p = paginator({ pageQueryParam: 'p' });
      expect(p.request({ p: '3' })).toStrictEqual(paged(3, 20));
      expect(p.request({ page: '3' })).toStrictEqual(paged(1, 20));
    });
  });

  describe('page_size', () => {
    it.each([
      ['the configured page size when page_size is absent', { page: '2' }, paged(2, 30)],
      ['a client page size under the cap', { page_size: '10' }, paged(1, 10)],
      ['a client page size equal to the cap', { page_size: '40' }, paged(1, 40)],
    ])('should use %s', (_, query, expected) => {
      expect(demo.request(query)).toStrictEqual(expected);
    });

    it.each(['41', '1000', '999999999999', '10000000000000'])(
      'should clamp page_size=%s to max_page_size',
      (size) => {
        expect(demo.request({ page_size: size })).toStrictEqual(paged(1, 40));
      },
    );

    it.each(['-1', '-50', 'abc', '', '1.5', 'NaN'])(
      'should fall back to the configured page size when page_size is %j',
      (size) => {
        expect(demo.request({ page_size: size })).toStrictEqual(paged(1, 30));
      },
    );

    it('should keep paginating on page_size=0 while a cap exists', () => {
      expect(demo.request({ page_size: '0', page: '2' })).toStrictEqual(paged(2, 30));
    });

    it('should return the whole set on page_size=0 when max_page_size is null', () => {
      expect(paginator({ maxPageSize: null }).request({ page_size: '0', page: '2' })).toStrictEqual(
        {
          all: true,
        },
      );
    });

    it('should accept any client page size when max_page_size is null', () => {
      expect(paginator({ maxPageSize: null }).request({ page_size: '1000' })).toStrictEqual(
        paged(1, 1000),
      );
    });

    it('should fall back to the configured size for a negative page_size without a cap', () => {
      expect(paginator({ maxPageSize: null }).request({ page_size: '-1' })).toStrictEqual(
        paged(1, 20),
      );
    });

    it('should ignore page_size when page_size_query_param is null', () => {
      const p = paginator({ pageSizeQueryParam: null });
      expect(p.request({ page_size: '10' })).toStrictEqual(paged(1, 20));
    });

    it('should not return the whole set on page_size=0 when page_size_query_param is null', () => {
      const p = paginator({ pageSizeQueryParam: null, maxPageSize: null });
      expect(p.request({ page_size: '0' })).toStrictEqual(paged(1, 20));
    });

    it('should read the page size from a custom page size query parameter only', () => {
      const p = paginator({ pageSizeQueryParam: 'per_page' });
      expect(p.request({ per_page: '5' })).toStrictEqual(paged(1, 5));
      expect(p.request({ page_size: '5' })).toStrictEqual(paged(1, 20));
    });

    it('should use the last of repeated page_size parameters', () => {
      expect(demo.request({ page_size: ['5', '7'] })).toStrictEqual(paged(1, 7));
    });
  });

  it('should return the whole set when pagination is disabled', () => {
    expect(new Paginator(null).request({ page: '2', page_size: '5' })).toStrictEqual({ all: true });
  });
});

describe('Paginator.window', () => {
  it('should fetch exactly one page when the total is counted', () => {
    expect(demo.window(paged(3, 30))).toStrictEqual({
      limit: 30,
      offset: 60,
    });
  });

  it('should fetch one extra row when the total is not counted', () => {
    expect(paginator({ pageTotalCount: false }).window(paged(3, 30))).toStrictEqual({
      limit: 31,
      offset: 60,
    });
  });

  it('should start the first page at offset 0', () => {
    expect(demo.window(paged(1, 30))).toStrictEqual({
      limit: 30,
      offset: 0,
    });
  });

  it('should keep the offset a safe integer however far past the end the page is', () => {
    const uncapped = paginator({ maxPageSize: null });
    const request = uncapped.request({ page: '9'.repeat(30), page_size: '9'.repeat(30) });
    expect(request).toStrictEqual(paged(1e12, 1e12));
    expect(uncapped.window(request)).toStrictEqual({
      limit: 1e12,
      offset: Number.MAX_SAFE_INTEGER,
    });
  });

  it('should fetch everything for a whole-set request', () => {
    expect(demo.window({ all: true })).toBeNull();
    expect(new Paginator(null).window({ all: true })).toBeNull();
  });
});

describe('Paginator.countsTotal', () => {
  it('should count when page_total_count is true', () => {
    expect(demo.countsTotal).toBe(true);
  });

  it('should not count when page_total_count is false', () => {
    expect(paginator({ pageTotalCount: false }).countsTotal).toBe(false);
  });

  it('should not count when pagination is disabled', () => {
    expect(new Paginator(null).countsTotal).toBe(false);
  });
});

describe('Paginator.page', () => {
  it('should describe a first page with a following page', () => {
    const records = rows(1, 30);
    expect(demo.page(paged(1), records, 75)).toStrictEqual(
      new Page(records, 1, 30, 75, true, 'page'),
    );
  });

  it('should have no following page on the last page', () => {
    const records = rows(61, 75);
    expect(demo.page(paged(3), records, 75)).toStrictEqual(
      new Page(records, 3, 30, 75, false, 'page'),
    );
  });

  it('should have no following page when the count ends exactly on the page', () => {
    expect((demo.page(paged(2), rows(31, 60), 60) as Page).hasNext).toBe(false);
    expect((demo.page(paged(2), rows(31, 60), 61) as Page).hasNext).toBe(true);
  });

  it('should give an empty page past the end', () => {
    expect(demo.page(paged(5), [], 75)).toStrictEqual(new Page([], 5, 30, 75, false, 'page'));
  });

  it('should give an empty first page for an empty set', () => {
    expect(demo.page(paged(1), [], 0)).toStrictEqual(new Page([], 1, 30, 0, false, 'page'));
  });

  it('should decide hasNext from the extra row and trim it when the total is not counted', () => {
    const p = paginator({ pageTotalCount: false });
    const records = rows(31, 61);
    expect(p.page(paged(2), records, undefined)).toStrictEqual(
      new Page(rows(31, 60), 2, 30, undefined, true, 'page'),
    );
    expect(records).toHaveLength(31);
  });

  it('should have no following page when no extra row came back', () => {
    const p = paginator({ pageTotalCount: false });
    expect(p.page(paged(2), rows(31, 60), undefined)).toStrictEqual(
      new Page(rows(31, 60), 2, 30, undefined, false, 'page'),
    );
    expect(p.page(paged(3), rows(61, 65), undefined)).toStrictEqual(
      new Page(rows(61, 65), 3, 30, undefined, false, 'page'),
    );
  });

  it('should carry a custom page query parameter to the page', () => {
    expect(
      (paginator({ pageQueryParam: 'p' }).page(paged(1, 20), [], 0) as Page).pageQueryParam,
    ).toBe('p');
  });

  it('should return the bare records for a whole-set request', () => {
    const records = rows(1, 3);
    expect(paginator({ maxPageSize: null }).page({ all: true }, records, undefined)).toBe(records);
    expect(new Paginator(null).page({ all: true }, records, undefined)).toBe(records);
  });

  it('should run request, window and page together without a count', () => {
    const p = paginator({ pageSize: 2, pageTotalCount: false });
    const req = p.request({ page: '2' });
    expect(p.window(req)).toStrictEqual({ limit: 3, offset: 2 });
    const table = rows(1, 5);
    const fetched = table.slice(2, 2 + 3);
    expect(p.page(req, fetched, undefined)).toStrictEqual(
      new Page([{ id: 3 }, { id: 4 }], 2, 2, undefined, true, 'page'),
    );
  });
});
