/**
 * The browsable pages put the data first (issue 32): on a list, the collapsed query form above the
 * table, the pages below it, the write forms after, and the request and response collapsed at the
 * end; column headers that order the list by their column (again: descending), keeping the rest of
 * the query; a query form of the fields the list reads; timestamps and other short values on one
 * line; the token field behind a small control unless writes need it. As text: the browser
 * suites (test/ops/browser/browsable-layout.spec.ts) measure what a person sees.
 */
import request from 'supertest';
import { useApp } from '../support/harness';
import {
  GENRES,
  T1_ISO,
  T2_ISO,
  USERS,
  marbleRow,
  movieLinks,
  movieRow,
} from '../support/fixtures';
import { BROWSER, expectPage, squash, tags } from './browsable-html';

const SEED = {
  users: USERS,
  marbles: [1, 2, 3, 4, 5].map((id) => marbleRow(id, `Marble ${id}`, { user_id: 1 })),
  genres: GENRES,
  movies: [movieRow(1, 'Midnight Harbor', { main_genre_id: 1 })],
  genres_movies: movieLinks('genre_id', [1, 2]),
  movies_users: movieLinks('user_id', [1, 3]),
};

/** A header of the records table: its column, its aria-sort and the link it orders by, if any. */
type Header = [column: string, sort: string, href: string];

/** The headers of the page's records table. */
function headers(page: string): Header[] {
  const head = /<table class="records">[\s\S]*?<thead>([\s\S]*?)<\/thead>/.exec(page)![1];
  return [...squash(head).matchAll(/<th scope="col"( aria-sort="(\w+)")?>(.*?)<\/th>/g)].map(
    ([, , sort, inner]) => [
      inner.replace(/<[^>]*>/g, ''),
      sort ?? '',
      (/href="([^"]*)"/.exec(inner)?.[1] ?? '').replace(/&amp;/g, '&'),
    ],
  );
}

describe('browsable pages: the data first', () => {
  const t = useApp({ seed: SEED });
  const page = async (path: string) => {
    const res = await request(t.app.getHttpServer()).get(path).set('Accept', BROWSER);
    expectPage(res);
    return res.text;
  };

  it('should show a list as its table under the collapsed query form, and the request and response collapsed last', async () => {
    const text = squash(await page('/api/demo/marbles?page_size=2'));
    const at = (marker: string) => {
      const index = text.indexOf(marker);
      expect([marker, index >= 0]).toEqual([marker, true]);
      return index;
    };
    const order = [
      '<h1>List marbles</h1>',
      '<details class="query" id="query">',
      '<table class="records">',
      '<nav class="pages"',
      '<form class="write record-form" id="create-form"',
      '<form class="write raw"',
      '<details class="exchange" id="exchange">',
      '<summary>JSON</summary>',
    ].map(at);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // Nothing of the query form or the exchange is open but the JSON body inside the latter.
    expect(tags(text).filter((tag) => tag.name === 'details' && 'open' in tag.attrs)).toEqual([
      { name: 'details', attrs: { open: '' } },
    ]);
    expect(text).toContain(
      '<summary> Request and response: <code class="request-line">GET /api/demo/marbles?page_size=2</code> → ' +
        '<strong class="status status-2xx">200 OK</strong></summary>',
    );
  });

  it("should name what the list was asked in the query form's summary, its page aside", async () => {
    const text = await page('/api/demo/marbles?search=Marble&ordering=-radius_mm&page=2');
    expect(squash(text)).toContain(
      '<summary> Search, filter and order<span class="applied">: search=Marble · ordering=-radius_mm</span></summary>',
    );
    expect(squash(await page('/api/demo/marbles'))).toContain(
      '<summary> Search, filter and order </summary>',
    );
  });

  it('should order by a column from its header, then descending, keeping the query but its page', async () => {
    const query = 'radius_mm__gte=3&search=Marble&page_size=2&page=2';
    const list = (ordering: string) => `/api/demo/marbles?${query}&ordering=${ordering}`;
    const link = (ordering: string) =>
      `/api/demo/marbles?radius_mm__gte=3&search=Marble&page_size=2&ordering=${ordering}`;
    const columns = (sorted: string, sort: string, again: string): Header[] =>
      ['id', 'name', 'radius_mm', 'price', 'is_discounted', 'created_at', 'updated_at'].map(
        (c): Header => (c === sorted ? [c, sort, link(again)] : [c, '', link(c)]),
      );
    const rest: Header[] = [
      ['user', '', ''],
      ['description', '', link('description')],
      ['picture', '', link('picture')],
    ];
    expect(headers(await page(list('radius_mm')))).toEqual([
      ...columns('radius_mm', 'ascending', '-radius_mm'),
      ...rest,
    ]);
    expect(headers(await page(list('-radius_mm')))).toEqual([
      ...columns('radius_mm', 'descending', 'radius_mm'),
      ...rest,
    ]);
    // Without an ordering, or with one of fields the list does not know, the list is by id.
    expect(headers(await page(`/api/demo/marbles?${query}`))).toEqual([
      ...columns('id', 'ascending', '-id'),
      ...rest,
    ]);
    expect(headers(await page(list('colour,-price,name')))[3]).toEqual([
      'price',
      'descending',
      link('price'),
    ]);
  });

  it('should keep asking for HTML the way the page was asked in the ordering links', async () => {
    const suffixed = headers(await page('/api/demo/marbles.html?page=1'));
    expect(suffixed[1]).toEqual(['name', '', '/api/demo/marbles.html?ordering=name']);
    const query = headers(await page('/api/demo/marbles?format=html&ordering=name'));
    expect(query[1]).toEqual(['name', 'ascending', '/api/demo/marbles?format=html&ordering=-name']);
  });

  it('should order and filter by the fields the list reads only, in the headers and the form', async () => {
    const text = await page('/api/plain/movies');
    expect(headers(text)).toEqual([
      ['id', 'ascending', '/api/plain/movies?ordering=-id'],
      ['created_at', '', '/api/plain/movies?ordering=created_at'],
      ['name', '', '/api/plain/movies?ordering=name'],
      ['price', '', '/api/plain/movies?ordering=price'],
      ['updated_at', '', '/api/plain/movies?ordering=updated_at'],
      ['main_genre', '', ''],
      ['genres', '', ''],
      ['users', '', ''],
    ]);
    const paths = ['id', 'created_at', 'name', 'price', 'updated_at', 'main_genre_id'].concat(
      'main_genre.id',
      'main_genre.name',
    );
    const options = tags(text)
      .filter((tag) => tag.name === 'option' && tag.attrs.value)
      .map((tag) => tag.attrs.value);
    expect(options).toEqual(paths.flatMap((path) => [path, `-${path}`]));
    const filters = tags(text)
      .filter((tag) => tag.name === 'input' && /^f-/.test(tag.attrs.id ?? ''))
      .map((tag) => tag.attrs.name.replace(/__\w+$/, ''));
    expect([...new Set(filters)]).toEqual(paths);
  });

  it('should keep timestamps, numbers, flags and references on one line, in lists and on records', async () => {
    const nowrap = (text: string) =>
      [...squash(text).matchAll(/<td class="nowrap">(.*?)<\/td>/g)].map(([, inner]) =>
        inner.replace(/<[^>]*>/g, ''),
      );
    expect(nowrap(await page('/api/demo/marbles/1'))).toEqual([
      '1',
      '10',
      '2.5',
      'false',
      T1_ISO,
      T2_ISO,
      'ann #1',
    ]);
    const list = nowrap(await page('/api/demo/marbles?only=id,created_at,name,updated_at'));
    expect(list).toEqual(Array(5).fill([T1_ISO, T2_ISO]).flat());
  });

  it('should put the token field behind a small "API token" control when writes need no token', async () => {
    const text = squash(await page('/api/demo/marbles/1'));
    expect(text).toContain(
      '<details class="token-box" id="token-box"><summary>API token</summary>' +
        '<form class="token" id="token-form" data-required="false">',
    );
  });
});

describe('browsable pages: the token field when writes need one', () => {
  const t = useApp({ apiToken: 'browsable-layout-token-0123456789', seed: SEED });

  it('should show the token field in full at the top of the page', async () => {
    const res = await request(t.app.getHttpServer())
      .get('/api/demo/marbles')
      .set('Accept', BROWSER);
    const text = squash(res.text);
    expect(text).toMatch(
      /<header class="top"><nav aria-label="Breadcrumb" class="crumbs">.*?<\/nav><form class="token" id="token-form" data-required="true"><label for="api-token">Bearer token \(API token or JWT\)<\/label>/,
    );
    expect(text).not.toContain('token-box');
  });
});
