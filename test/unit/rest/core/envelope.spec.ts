import { buildEnvelope, pageUrl } from '../../../../src/rest/core/output/envelope';
import { Page } from '../../../../src/rest/core/paginator';

const BASE = 'http://localhost:3000/api/demo/marbles';
const rows = (...ids: number[]) => ids.map((id) => ({ id }));

/** `envelope` is `expected`, its keys in the same order. */
function expectInOrder(envelope: object, expected: Record<string, unknown>): void {
  expect(envelope).toStrictEqual(expected);
  expect(Object.keys(envelope)).toEqual(Object.keys(expected));
}

describe('buildEnvelope', () => {
  it('should order count, page, page_size, total_pages, next, previous, results', () => {
    const envelope = buildEnvelope(new Page(rows(3, 4), 2, 2, 5, true, 'page'), BASE, 'page=2');
    expect(JSON.stringify(envelope)).toBe(
      '{"count":5,"page":2,"page_size":2,"total_pages":3,' +
        `"next":"${BASE}?page=3","previous":"${BASE}?page=1",` +
        '"results":[{"id":3},{"id":4}]}',
    );
  });

  it('should leave previous out on page 1', () => {
    const envelope = buildEnvelope(new Page(rows(1, 2), 1, 2, 5, true, 'page'), BASE, '');
    expectInOrder(envelope, {
      count: 5,
      page: 1,
      page_size: 2,
      total_pages: 3,
      next: `${BASE}?page=2`,
      results: rows(1, 2),
    });
  });

  it('should leave next out on the last page', () => {
    const envelope = buildEnvelope(new Page(rows(5), 3, 2, 5, false, 'page'), BASE, 'page=3');
    expectInOrder(envelope, {
      count: 5,
      page: 3,
      page_size: 2,
      total_pages: 3,
      previous: `${BASE}?page=2`,
      results: rows(5),
    });
  });

  it('should leave next and previous out on the only page', () => {
    expect(buildEnvelope(new Page(rows(1), 1, 30, 1, false, 'page'), BASE, '')).toStrictEqual({
      count: 1,
      page: 1,
      page_size: 30,
      total_pages: 1,
      results: rows(1),
    });
  });

  it('should describe an empty set with no pages', () => {
    expect(buildEnvelope(new Page([], 1, 30, 0, false, 'page'), BASE, '')).toStrictEqual({
      count: 0,
      page: 1,
      page_size: 30,
      total_pages: 0,
      results: [],
    });
  });

  it('should round total_pages up', () => {
    expect(buildEnvelope(new Page([], 1, 30, 61, true, 'page'), BASE, '').total_pages).toBe(3);
    expect(buildEnvelope(new Page([], 1, 30, 60, true, 'page'), BASE, '').total_pages).toBe(2);
  });

  it('should give an empty results array and no next link past the last page', () => {
    const envelope = buildEnvelope(new Page([], 5, 30, 75, false, 'page'), BASE, 'page=5');
    expect(envelope.results).toStrictEqual([]);
    expect(envelope.count).toBe(75);
    expect(envelope.total_pages).toBe(3);
    expect('next' in envelope).toBe(false);
  });

  it('should omit count and total_pages when the total is not counted', () => {
    const envelope = buildEnvelope(new Page(rows(3, 4), 2, 2, undefined, true, 'page'), BASE, '');
    expect(JSON.stringify(envelope)).toBe(
      '{"page":2,"page_size":2,' +
        `"next":"${BASE}?page=3","previous":"${BASE}?page=1",` +
        '"results":[{"id":3},{"id":4}]}',
    );
  });

  it('should omit next on the last page when the total is not counted', () => {
    expect(
      buildEnvelope(new Page(rows(1), 1, 2, undefined, false, 'page'), BASE, ''),
    ).toStrictEqual({ page: 1, page_size: 2, results: rows(1) });
  });

  it('should keep the other query parameters in next and previous', () => {
    const envelope = buildEnvelope(
      new Page(rows(3, 4), 2, 2, 9, true, 'page'),
      `${BASE}.xml`,
      'ordering=-price&page=2&is_discounted=true&page_size=2',
    );
    expect(envelope.next).toBe(`${BASE}.xml?ordering=-price&page=3&is_discounted=true&page_size=2`);
    expect(envelope.previous).toBe(
      `${BASE}.xml?ordering=-price&page=1&is_discounted=true&page_size=2`,
    );
  });

  it('should use the page query parameter of the page', () => {
    const envelope = buildEnvelope(new Page(rows(3), 2, 1, 3, true, 'p'), BASE, 'page=9&p=2');
    expect(envelope.next).toBe(`${BASE}?page=9&p=3`);
    expect(envelope.previous).toBe(`${BASE}?page=9&p=1`);
  });
});

describe('pageUrl', () => {
  it('should replace the page parameter in place and keep the others in order', () => {
    expect(pageUrl(BASE, 'ordering=-id&page=2&is_primary=true', 'page', 3)).toBe(
      `${BASE}?ordering=-id&page=3&is_primary=true`,
    );
  });

  it('should append the page parameter when it is absent', () => {
    expect(pageUrl(BASE, 'ordering=-id&search=a%20b', 'page', 2)).toBe(
      `${BASE}?ordering=-id&search=a%20b&page=2`,
    );
  });

  it('should build a query with only the page for an empty query', () => {
    expect(pageUrl(BASE, '', 'page', 2)).toBe(`${BASE}?page=2`);
  });

  it('should collapse repeated page parameters into the first one', () => {
    expect(pageUrl(BASE, 'page=1&x=1&page=7&y=2&page=9', 'page', 2)).toBe(`${BASE}?page=2&x=1&y=2`);
  });

  it('should keep parameter values exactly as sent', () => {
    expect(pageUrl(BASE, 'user.login=a%26b&search=x+y&name__in=a,b', 'page', 2)).toBe(
      `${BASE}?user.login=a%26b&search=x+y&name__in=a,b&page=2`,
    );
  });

  it('should not touch parameters whose names only resemble the page parameter', () => {
    expect(pageUrl(BASE, 'pages=4&my_page=1&page_size=5&page__gt=1', 'page', 2)).toBe(
      `${BASE}?pages=4&my_page=1&page_size=5&page__gt=1&page=2`,
    );
  });

  it('should replace a page parameter that has no value', () => {
    expect(pageUrl(BASE, 'page&x=1', 'page', 2)).toBe(`${BASE}?page=2&x=1`);
  });

  it('should recognise a percent-encoded page parameter name', () => {
    expect(pageUrl(BASE, 'x=1&pag%65=5', 'page', 6)).toBe(`${BASE}?x=1&page=6`);
  });

  it('should leave a malformed percent-encoding alone', () => {
    expect(pageUrl(BASE, '%E0%A4%A=1&page=1', 'page', 2)).toBe(`${BASE}?%E0%A4%A=1&page=2`);
  });

  it('should use a custom page parameter and leave page alone', () => {
    expect(pageUrl(BASE, 'page=5&p=2&q=x', 'p', 3)).toBe(`${BASE}?page=5&p=3&q=x`);
  });

  it('should keep a format suffix in the base URL', () => {
    expect(pageUrl(`${BASE}.json`, 'page=1', 'page', 2)).toBe(`${BASE}.json?page=2`);
  });
});
