/**
 * What a list does with the parts of a query it does not know (`colour=red`, `price__foo=3`,
 * `ordering=colour`): by default it ignores them, as before, and the HTML page lists them above
 * the data; with STRICT_QUERY=true they are a 400 naming each, in the negotiated format.
 */
import request from 'supertest';
import { useApp } from '../support/harness';
import { USERS, marbleRow, movieRow } from '../support/fixtures';
import { expectError, expectXml } from '../support/http';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const SEED = {
  users: USERS,
  marbles: [marbleRow(1, 'Red', { price: '3.5' }), marbleRow(2, 'Blue', { price: '9.5' })],
  movies: [movieRow(1, 'Alpha'), movieRow(2, 'Beta')],
};

const MARBLE_FIELDS =
  'id, name, radius_mm, price, is_discounted, created_at, updated_at, user_id, user.id, user.login, description, picture';
const MOVIE_FIELDS =
  'id, created_at, name, price, updated_at, main_genre_id, main_genre.id, main_genre.name';
const OPERATORS = 'in, lt, lte, gt, gte, contains';
const MARBLE_LIST = 'ordering, search, page, page_size, only, fields, except, format';
const MOVIE_LIST = 'ordering, search, only, fields, except, format';
const takes = (list: string, fields: string) =>
  `the list takes: ${list}; the fields to filter by: ${fields}.`;
const MARBLE_TAKES = takes(MARBLE_LIST, MARBLE_FIELDS);
const TYPOS = 'colour=red&price__foo=3&ordering=colour,-name,-size';

const unknown = (list: string, fields: string) => ({
  message: 'Unknown query parameters; nothing was read.',
  errors: {
    colour: [`Unknown parameter; ${takes(list, fields)}`],
    price__foo: [`Unknown operator "foo"; operators: ${OPERATORS}.`],
    ordering: [
      `Unknown field "colour"; ordering takes: ${fields}.`,
      `Unknown field "size"; ordering takes: ${fields}.`,
    ],
  },
});

describe('unknown query parameters, by default', () => {
  const t = useApp({ seed: SEED });

  it('should ignore them in JSON, as before (ordered by the one known field, -name)', async () => {
    const res = await t.http().get(`/api/demo/marbles?${TYPOS}&only=id`);
    expect([res.status, res.body.results]).toEqual([200, [{ id: 1 }, { id: 2 }]]);
  });

  it('should list them on the page, above the data, each with what is wrong', async () => {
    const res = await request(t.app.getHttpServer())
      .get(`/api/demo/marbles?${TYPOS}&page=1&page_size=5&only=id&format=html`)
      .set('Accept', BROWSER);
    expect(res.status).toBe(200);
    const text = res.text.replace(/\s+/g, ' ');
    const notice = /<div class="ignored" role="note">(.*?)<\/div>/.exec(text)![1];
    expect(notice).toBe(
      ' <p><strong>Ignored query parameters</strong> (the answer is as if they were not there; ' +
        '<code>STRICT_QUERY=true</code> makes them a 400):</p> <ul> ' +
        `<li><code>colour</code>: Unknown parameter; ${MARBLE_TAKES}</li>` +
        `<li><code>price__foo</code>: Unknown operator &quot;foo&quot;; operators: ${OPERATORS}.</li>` +
        `<li><code>ordering</code>: Unknown field &quot;colour&quot;; ordering takes: ${MARBLE_FIELDS}. ` +
        `Unknown field &quot;size&quot;; ordering takes: ${MARBLE_FIELDS}.</li> </ul> `,
    );
    expect(text.indexOf('class="ignored"')).toBeLessThan(text.indexOf('<table'));
  });

  it('should ignore an ordering of "-" alone and a parameter a feed does not take', async () => {
    const res = await t.http().get('/api/demo/marbles?ordering=-&only=id');
    expect([res.status, res.body.results]).toEqual([200, [{ id: 1 }, { id: 2 }]]);
    const feed = await t.http().get('/api/demo/marbles/events?colour=red');
    expect(feed.status).toBe(200);
  });

  it('should show no notice when every parameter is known', async () => {
    const res = await request(t.app.getHttpServer())
      .get(
        '/api/demo/marbles?price__gt=1&user.login=ann&ordering=-price&search=r&page=1&page_size=5&except=description',
      )
      .set('Accept', BROWSER);
    expect([res.status, res.text.includes('class="ignored"')]).toEqual([200, false]);
  });
});

describe('unknown query parameters with STRICT_QUERY=true', () => {
  const t = useApp({ seed: SEED, strictQuery: true });

  it('should answer 400 naming each unknown parameter, operator and ordering field', async () => {
    expectError(
      await t.http().get(`/api/demo/marbles?${TYPOS}`),
      400,
      unknown(MARBLE_LIST, MARBLE_FIELDS),
    );
    expectError(
      await t.http().get(`/api/plain/movies?${TYPOS}`),
      400,
      unknown(MOVIE_LIST, MOVIE_FIELDS),
    );
  });

  it('should name the closest parameter or field of a slip, and the list parameters', async () => {
    const cases: [string, string][] = [
      ['pagesize=5', 'page_size'],
      ['Page=2', 'page'],
      ['odering=-id', 'ordering'],
      ['serach=r', 'search'],
      ['prise=3', 'price'],
      ['user.logn=ann', 'user.login'],
      ['exept=id', 'except'],
    ];
    for (const [query, closest] of cases) {
      const name = query.split('=')[0];
      const res = await t.http().get(`/api/demo/marbles?${query}`);
      expect({ query, status: res.status, body: res.body }).toEqual({
        query,
        status: 400,
        body: {
          message: 'Unknown query parameters; nothing was read.',
          errors: {
            [name]: [
              `Unknown parameter; did you mean "${closest}"? ` +
                `The list takes: ${MARBLE_LIST}; the fields to filter by: ${MARBLE_FIELDS}.`,
            ],
          },
        },
      });
    }
    // Nothing close: the lists alone.
    const far = await t.http().get('/api/demo/marbles?colour=red');
    expect(far.body.errors).toEqual({ colour: [`Unknown parameter; ${MARBLE_TAKES}`] });
  });

  it('should refuse a page or page size that is not one, where by default it is page 1', async () => {
    const cases: [string, Record<string, string[]>][] = [
      ['page=abc', { page: ['"abc" is not a page number: a whole number from 1.'] }],
      ['page=0', { page: ['"0" is not a page number: a whole number from 1.'] }],
      ['page=-2', { page: ['"-2" is not a page number: a whole number from 1.'] }],
      [
        'page=1.5&page_size=ten',
        {
          page: ['"1.5" is not a page number: a whole number from 1.'],
          page_size: ['"ten" is not a page size: a whole number.'],
        },
      ],
    ];
    for (const [query, errors] of cases) {
      const res = await t.http().get(`/api/demo/marbles?${query}`);
      expect({ query, status: res.status, body: res.body }).toEqual({
        query,
        status: 400,
        body: { message: 'Invalid query parameters.', errors },
      });
    }
    const xml = await t.http().get('/api/demo/marbles.xml?page=abc');
    expectXml(xml, 400);
    expect(xml.text).toContain(
      '<errors><page type="array"><page>"abc" is not a page number: a whole number from 1.</page>',
    );
    const fine = await t.http().get('/api/demo/marbles?page=2&page_size=1&only=id');
    expect([fine.status, fine.body.results]).toEqual([200, [{ id: 2 }]]);
  });

  it("should keep a query parameter's name in XML errors (price__foo, not price--foo)", async () => {
    const xml = await t.http().get('/api/demo/marbles.xml?price__foo=3&user.logn=x');
    expectXml(xml, 400);
    expect(xml.text).toContain(
      '<errors><price__foo type="array"><price__foo>Unknown operator "foo"; operators: ',
    );
    expect(xml.text).toContain('<user.logn type="array"><user.logn>Unknown parameter;');
    expect(xml.text).not.toContain('price--foo');
    // A bad value of a filter: its parameter's name too.
    const value = await t.http().get('/api/demo/marbles.xml?radius_mm__gt=big');
    expect(value.text).toContain(
      '<errors><radius_mm__gt type="array"><radius_mm__gt>"big" is not a valid integer.' +
        '</radius_mm__gt></radius_mm__gt></errors>',
    );
  });

  it('should answer it in XML, and in JSON for a CSV request', async () => {
    const xml = await t.http().get('/api/demo/marbles.xml?colour=red');
    expectXml(xml, 400);
    expect(xml.text).toContain('<colour type="array"><colour>Unknown parameter;');
    const csv = await t.http().get('/api/plain/movies.csv?colour=red');
    expect([csv.status, csv.headers['content-type'], Object.keys(csv.body.errors)]).toEqual([
      400,
      'application/json; charset=utf-8',
      ['colour'],
    ]);
  });

  it('should refuse an ordering that names no field ("-" alone)', async () => {
    for (const ordering of ['-', 'name,-', ' - ']) {
      const res = await t.http().get(`/api/demo/marbles?ordering=${encodeURIComponent(ordering)}`);
      expectError(res, 400, {
        message: 'Unknown query parameters; nothing was read.',
        errors: { ordering: [`"-" names no field; ordering takes: ${MARBLE_FIELDS}.`] },
      });
    }
  });

  it("should refuse a parameter a change feed does not take, naming the feed's", async () => {
    for (const [path, feedTakes] of [
      ['/api/demo/marbles/events', 'after, limit, format'],
      ['/api/plain/movies/events', 'after, limit, format'],
      ['/api/events', 'after, limit, format, collections'],
    ]) {
      const res = await t.http().get(`${path}?colour=red&limit=5`);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 400,
        body: {
          message: 'Unknown query parameters; nothing was read.',
          errors: { colour: [`Unknown parameter; the feed takes: ${feedTakes}.`] },
        },
      });
      const known = await t.http().get(`${path}?after=0&limit=5&format=json`);
      expect({ path, status: known.status }).toEqual({ path, status: 200 });
    }
    const slip = await t.http().get('/api/events?limt=5');
    expect(slip.body.errors).toEqual({
      limt: [
        'Unknown parameter; did you mean "limit"? The feed takes: after, limit, format, collections.',
      ],
    });
    const all = await t.http().get('/api/events?collections=marbles');
    expect(all.status).toBe(200);
  });

  it('should answer every known parameter as before', async () => {
    const res = await t
      .http()
      .get(
        '/api/demo/marbles?price__gte=1&name__in=Red,Blue&user.login=null&ordering=-price,name' +
          '&search=e&page=1&page_size=5&only=id&format=json',
      );
    expect([res.status, res.body.results]).toEqual([200, [{ id: 2 }, { id: 1 }]]);
    const movies = await t.http().get('/api/plain/movies?fields=id&ordering=-id');
    expect([movies.status, movies.body]).toEqual([200, [{ id: 2 }, { id: 1 }]]);
  });
});
