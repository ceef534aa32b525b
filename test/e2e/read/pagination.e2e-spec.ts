/**
 * Pagination of the enveloped listings: page and page_size rules, count and total_pages,
 * next/previous URLs; movies are not paginated.
 */
import { useApp } from '../support/harness';
import { onePage, userRows } from '../support/fixtures';
import {
  expectExactJson,
  expectNegotiatedJson,
  expectNegotiatedXml,
  ids,
  expectExactXml,
} from '../support/http';

const HOST = 'records.test:8080';
const BASE = `http://${HOST}/api/demo/marbles`;
const TOTAL = 65;

const pad = (n: number) => String(n).padStart(2, '0');
const hourIso = (i: number) => new Date(Date.UTC(2024, 0, 1, i)).toISOString();
const hourDb = (i: number) => hourIso(i).slice(0, 23).replace('T', ' ');

/** Marble `i` (1..65) as stored. */
function marbleRow(i: number) {
  return {
    id: i,
    name: `Marble ${pad(i)}`,
    radius_mm: (i % 7) + 1,
    price: i % 5 === 0 ? null : `${i}.50`,
    is_discounted: i % 3 === 0,
    created_at: hourDb(i),
    updated_at: hourDb(i + 100),
    user_id: i % 2 === 1 ? 1 : null,
    description: `Generated marble ${i}`,
    picture: null,
  };
}

/** Marble `i` as the API renders it: the stored values, the decimal canonical, times in ISO. */
function marbleJson(i: number) {
  const { id, name, radius_mm, price, is_discounted, user_id, description } = marbleRow(i);
  return {
    id,
    name,
    radius_mm,
    price: price === null ? null : `${i}.5`,
    is_discounted,
    created_at: hourIso(i),
    updated_at: hourIso(i + 100),
    ...(user_id === null ? {} : { user: { id: 1, login: 'ann' } }),
    description,
    picture: null,
  };
}

/** Marble `i` as an XML `result` item. */
function marbleXml(i: number) {
  const m = marbleJson(i);
  return (
    `<result><id type="integer">${i}</id><name>${m.name}</name>` +
    `<radius-mm type="integer">${m.radius_mm}</radius-mm>` +
    (m.price === null ? '<price nil="true"/>' : `<price type="decimal">${m.price}</price>`) +
    `<is-discounted type="boolean">${m.is_discounted}</is-discounted>` +
    `<created-at type="dateTime">${m.created_at.slice(0, 19)}Z</created-at>` +
    `<updated-at type="dateTime">${m.updated_at.slice(0, 19)}Z</updated-at>` +
    (i % 2 === 1 ? '<user><id type="integer">1</id><login>ann</login></user>' : '') +
    `<description>${m.description}</description><picture nil="true"/></result>`
  );
}

/** An envelope (of all 65 marbles unless `count` says otherwise), with the links given. */
function pageOf(
  page: number,
  page_size: number,
  total_pages: number,
  links: { next?: string; previous?: string },
  results: unknown[],
  count = TOTAL,
) {
  return { count, page, page_size, total_pages, ...links, results };
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, k) => from + k);
const marbles = (from: number, to: number) => range(from, to).map(marbleJson);

/** Values of `page` that are not a page number: [label, value]. */
const BAD_PAGES = [
  ['0', '0'],
  ['-1', '-1'],
  ['-20', '-20'],
  ['abc', 'abc'],
  ['empty', ''],
];

/** Values of `page_size` that are not a size: [label, value]. */
const BAD_PAGE_SIZES = [
  ['0', '0'],
  ['-5', '-5'],
  ['abc', 'abc'],
  ['empty', ''],
];

describe('read side: pagination', () => {
  const t = useApp({
    allowedHosts: [HOST],
    seed: { users: userRows('ann'), marbles: range(1, TOTAL).map(marbleRow) },
  });
  const get = (path: string) => t.http().get(path).set('Host', HOST);

  /** GET `path`: a JSON page whose body is `expected`. */
  async function expectPage(path: string, expected: unknown) {
    const res = await get(path);
    expectNegotiatedJson(res);
    expect(res.body).toStrictEqual(expected);
  }

  describe('page', () => {
    it('should serve page 1 with 30 records, count, total_pages and next when page is absent', async () => {
      expectExactJson(
        await get('/api/demo/marbles'),
        pageOf(1, 30, 3, { next: `${BASE}?page=2` }, marbles(1, 30)),
      );
    });

    it('should serve a middle page with next and previous', async () => {
      expectExactJson(
        await get('/api/demo/marbles?page=2'),
        pageOf(2, 30, 3, { next: `${BASE}?page=3`, previous: `${BASE}?page=1` }, marbles(31, 60)),
      );
    });

    it('should leave next out on the last page', async () => {
      await expectPage(
        '/api/demo/marbles?page=3',
        pageOf(3, 30, 3, { previous: `${BASE}?page=2` }, marbles(61, 65)),
      );
    });

    it('should answer 200 with empty results just past the last page', async () => {
      await expectPage(
        '/api/demo/marbles?page=4',
        pageOf(4, 30, 3, { previous: `${BASE}?page=3` }, []),
      );
    });

    it('should answer 200 with empty results and no next far past the last page', async () => {
      const res = await get('/api/demo/marbles?page=1000');
      expectNegotiatedJson(res);
      expect(res.body).toMatchObject(pageOf(1000, 30, 3, {}, []));
      expect(res.body).not.toHaveProperty('next');
    });

    it('should answer 200 with empty results for a page number of 13 digits', async () => {
      const res = await get('/api/demo/marbles?page=1000000000000');
      expectNegotiatedJson(res);
      expect(res.body).toMatchObject(pageOf(1000000000000, 30, 3, {}, []));
      expect(res.body).not.toHaveProperty('next');
    });

    it.each(BAD_PAGES)('should serve page 1 when page is %s', async (_label, value) => {
      await expectPage(
        `/api/demo/marbles?page=${value}`,
        pageOf(1, 30, 3, { next: `${BASE}?page=2` }, marbles(1, 30)),
      );
    });
  });

  describe('page_size', () => {
    it('should honour a page_size under the cap', async () => {
      await expectPage(
        '/api/demo/marbles?page_size=10&page=7',
        pageOf(7, 10, 7, { previous: `${BASE}?page_size=10&page=6` }, marbles(61, 65)),
      );
    });

    it('should accept a page_size equal to the cap of 40', async () => {
      await expectPage(
        '/api/demo/marbles?page_size=40',
        pageOf(1, 40, 2, { next: `${BASE}?page_size=40&page=2` }, marbles(1, 40)),
      );
    });

    it.each(['41', '100', '1000000'])('should clamp page_size=%s to 40', async (size) => {
      await expectPage(
        `/api/demo/marbles?page_size=${size}&page=2`,
        pageOf(2, 40, 2, { previous: `${BASE}?page_size=${size}&page=1` }, marbles(41, 65)),
      );
    });

    it('should clamp a page_size of 13 digits to 40', async () => {
      await expectPage(
        '/api/demo/marbles?page_size=1000000000000',
        pageOf(1, 40, 2, { next: `${BASE}?page_size=1000000000000&page=2` }, marbles(1, 40)),
      );
    });

    it.each(BAD_PAGE_SIZES)('should fall back to 30 when page_size is %s', async (_label, size) => {
      await expectPage(
        `/api/demo/marbles?page_size=${size}`,
        pageOf(1, 30, 3, { next: `${BASE}?page_size=${size}&page=2` }, marbles(1, 30)),
      );
    });

    it('should page with a page_size of 1', async () => {
      await expectPage(
        '/api/demo/marbles?page_size=1&page=65',
        pageOf(65, 1, 65, { previous: `${BASE}?page_size=1&page=64` }, [marbleJson(65)]),
      );
    });
  });

  describe('next and previous', () => {
    it('should keep every other parameter in its place and change only the page', async () => {
      const res = await get(
        '/api/demo/marbles?ordering=-radius_mm&foo=bar&page=2&page_size=5&description__contains=marble',
      );
      expectNegotiatedJson(res);
      expect(res.body.next).toBe(
        `${BASE}?ordering=-radius_mm&foo=bar&page=3&page_size=5&description__contains=marble`,
      );
      expect(res.body.previous).toBe(
        `${BASE}?ordering=-radius_mm&foo=bar&page=1&page_size=5&description__contains=marble`,
      );
    });

    it('should replace a non-numeric page in place', async () => {
      const res = await get('/api/demo/marbles?page=abc&page_size=10');
      expectNegotiatedJson(res);
      expect(res.body.page).toBe(1);
      expect(res.body.next).toBe(`${BASE}?page=2&page_size=10`);
      expect(res.body).not.toHaveProperty('previous');
    });

    it('should keep filter parameters as sent, percent-encoding included', async () => {
      const res = await get(
        '/api/demo/marbles?user.login=ann&id__in=1%2C3%2C5%2C7%2C9&page_size=2&page=2',
      );
      expectNegotiatedJson(res);
      const query = 'user.login=ann&id__in=1%2C3%2C5%2C7%2C9&page_size=2';
      expect(res.body).toStrictEqual(
        pageOf(
          2,
          2,
          3,
          { next: `${BASE}?${query}&page=3`, previous: `${BASE}?${query}&page=1` },
          [marbleJson(5), marbleJson(7)],
          5,
        ),
      );
    });

    it('should count only the filtered set', async () => {
      const res = await get('/api/demo/marbles?user_id=null&is_discounted=true');
      expectNegotiatedJson(res);
      const expectedIds = range(1, TOTAL).filter((i) => i % 2 === 0 && i % 3 === 0);
      expect(res.body).toStrictEqual(onePage(expectedIds.map(marbleJson)));
    });

    it('should answer an empty filtered set with count 0 and no links', async () => {
      await expectPage('/api/demo/marbles?name=nothing', onePage([]));
    });

    it('should keep the .json suffix in the links', async () => {
      const res = await get('/api/demo/marbles.json?page=2&page_size=20');
      expectNegotiatedJson(res);
      expect(res.body.next).toBe(`${BASE}.json?page=3&page_size=20`);
      expect(res.body.previous).toBe(`${BASE}.json?page=1&page_size=20`);
    });

    it('should keep the .xml suffix in the links of an XML page, escaped', async () => {
      const res = await get('/api/demo/marbles.xml?page=2&page_size=30');
      expectExactXml(
        res,
        '<hash><count type="integer">65</count><page type="integer">2</page>' +
          '<page-size type="integer">30</page-size><total-pages type="integer">3</total-pages>' +
          `<next>${BASE}.xml?page=3&amp;page_size=30</next>` +
          `<previous>${BASE}.xml?page=1&amp;page_size=30</previous>` +
          `<results type="array">${range(31, 60).map(marbleXml).join('')}</results></hash>`,
      );
    });

    it('should keep the format parameter in the links', async () => {
      const res = await get('/api/demo/marbles?format=xml&page_size=20');
      expectNegotiatedXml(res);
      expect(res.text).toContain(`<next>${BASE}?format=xml&amp;page_size=20&amp;page=2</next>`);
      expect(res.text).not.toContain('<previous>');
    });

    it('should keep the trailing slash of the index path in the links', async () => {
      const res = await get('/api/demo/marbles/?page=2');
      expectNegotiatedJson(res);
      expect(res.body.next).toBe(`${BASE}/?page=3`);
      expect(res.body.previous).toBe(`${BASE}/?page=1`);
    });

    it("should build the links on the request's own host", async () => {
      const res = await t.http().get('/api/demo/marbles?page=2');
      expectNegotiatedJson(res);
      const origin = new URL(res.request.url).host;
      expect(res.body.next).toBe(`http://${origin}/api/demo/marbles?page=3`);
      expect(res.body.previous).toBe(`http://${origin}/api/demo/marbles?page=1`);
    });
  });

  describe('ordering across pages', () => {
    it('should never overlap or skip records when ordering by a field with ties', async () => {
      const seen: number[] = [];
      for (let page = 1; page <= 7; page++) {
        const res = await get(
          `/api/demo/marbles?ordering=-is_discounted&page_size=10&page=${page}`,
        );
        expectNegotiatedJson(res);
        seen.push(...ids(res.body));
      }
      // Ties are broken by id in the direction of the last ordering term: descending here.
      const discounted = range(1, TOTAL).filter((i) => i % 3 === 0);
      const others = range(1, TOTAL).filter((i) => i % 3 !== 0);
      expect(seen).toEqual([...discounted.reverse(), ...others.reverse()]);
    });

    it('should never overlap or skip records when ordering by a nested field that is null on half the records', async () => {
      const seen: number[] = [];
      for (let page = 1; page <= 5; page++) {
        const res = await get(
          `/api/demo/marbles?ordering=user.login,radius_mm&page_size=15&page=${page}`,
        );
        expectNegotiatedJson(res);
        seen.push(...ids(res.body));
      }
      expect(seen).toHaveLength(TOTAL);
      expect(new Set(seen).size).toBe(TOTAL);
    });
  });

  describe('other collections', () => {
    beforeAll(async () => {
      await t.insert(
        'emails',
        range(1, 31).map((i) => ({
          id: i,
          email: `ann${i}@example.com`,
          is_primary: false,
          user_id: 1,
        })),
      );
      await t.insert(
        'phone_numbers',
        range(1, 31).map((i) => ({ id: i, number: `555-01${pad(i)}`, user_id: 1 })),
      );
      await t.insert('genres', [{ id: 1, name: 'Action' }]);
      await t.insert(
        'movies',
        range(1, 45).map((i) => ({
          id: i,
          name: `Movie ${pad(i)}`,
          price: '5.00',
          main_genre_id: 1,
          created_at: hourDb(i),
          updated_at: hourDb(i),
        })),
      );
    });

    it('should page emails by 30', async () => {
      await expectPage(
        '/api/demo/emails?page=2',
        pageOf(
          2,
          30,
          2,
          { previous: `http://${HOST}/api/demo/emails?page=1` },
          [
            {
              id: 31,
              email: 'ann31@example.com',
              is_primary: false,
              user: { id: 1, login: 'ann' },
            },
          ],
          31,
        ),
      );
    });

    it('should page phone numbers by 30 and clamp their page_size to 40', async () => {
      const first = await get('/api/demo/phone_numbers');
      expectNegotiatedJson(first);
      expect(first.body).toMatchObject({ count: 31, page: 1, page_size: 30, total_pages: 2 });
      expect(first.body.next).toBe(`http://${HOST}/api/demo/phone_numbers?page=2`);
      expect(ids(first.body)).toEqual(range(1, 30));
      const clamped = await get('/api/demo/phone_numbers?page_size=50');
      const phones = range(1, 31).map((i) => ({
        id: i,
        number: `555-01${pad(i)}`,
        user: { id: 1, login: 'ann' },
      }));
      expect(clamped.body).toStrictEqual(pageOf(1, 40, 1, {}, phones, 31));
    });

    it('should return every movie as a bare array whatever page and page_size say', async () => {
      for (const query of ['', '?page=2', '?page_size=1', '?page=2&page_size=10']) {
        const res = await get(`/api/plain/movies${query}`);
        expectNegotiatedJson(res);
        expect(Array.isArray(res.body)).toBe(true);
        expect(ids(res.body)).toEqual(range(1, 45));
      }
    });
  });
});
