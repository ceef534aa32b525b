/**
 * CSV: lists and records as `text/csv` by `.csv`, `format=csv` and `Accept: text/csv`; a header
 * row, RFC 4180 quoting, references flattened, formulas escaped; the same filters, ordering,
 * selection and pages as JSON, next and previous in `Link`; the whole filtered set of movies read
 * in batches while it is written; a phone number written `+1 555 0100` escaped, one in E.164 not;
 * errors in JSON; writes never CSV.
 */
import { useApp } from '../support/harness';
import {
  ANN,
  BOB,
  T1_ISO,
  T2_ISO,
  USERS,
  marbleRow,
  movieLinks,
  movieRow,
} from '../support/fixtures';
import { JSON_TYPE, expectVaryAccept } from '../support/http';

const CSV_TYPE = 'text/csv; charset=utf-8; header=present';
const MARBLE_HEADER =
  'id,name,radius_mm,price,is_discounted,created_at,updated_at,user.id,user.login,description,picture';
const times = `${T1_ISO},${T2_ISO}`;

const MARBLES = [
  marbleRow(1, 'Plain', { user_id: 1, price: '2.5' }),
  marbleRow(2, 'Comma, "quoted"', { user_id: 2, price: '7.25', description: 'two\nlines' }),
  marbleRow(3, '=HYPERLINK("http://x")', { price: '3.5', is_discounted: true }),
  marbleRow(4, '+A1', { description: '@SUM(A1)' }),
  marbleRow(5, '-2+3', { description: '\tTabbed' }),
  marbleRow(6, '-3.5', { description: '-' }),
  marbleRow(7, '+1', { price: '9.5' }),
];

const ROWS = [
  `1,Plain,10,2.5,false,${times},1,ann,,`,
  `2,"Comma, ""quoted""",10,7.25,false,${times},2,bob,"two\nlines",`,
  `3,"'=HYPERLINK(""http://x"")",10,3.5,true,${times},,,,`,
  `4,'+A1,10,2.5,false,${times},,,'@SUM(A1),`,
  `5,'-2+3,10,2.5,false,${times},,,'\tTabbed,`,
  `6,-3.5,10,2.5,false,${times},,,'-,`,
  `7,+1,10,9.5,false,${times},,,,`,
];

const csv = (...lines: string[]) => lines.map((line) => `${line}\r\n`).join('');

describe('CSV: marbles', () => {
  const t = useApp({ seed: { users: USERS, marbles: MARBLES } });
  const http = () => t.http();

  it('should answer a list by .csv, format=csv and Accept alike: header row, quoting, escaped formulas', async () => {
    const expected = csv(MARBLE_HEADER, ...ROWS);
    for (const res of [
      await http().get('/api/demo/marbles.csv'),
      await http().get('/api/demo/marbles?format=csv'),
      await http().get('/api/demo/marbles').set('Accept', 'text/csv'),
      await http().get('/api/demo/marbles').set('Accept', 'text/csv, application/json'),
    ]) {
      expect([res.status, res.headers['content-type'], res.text]).toEqual([
        200,
        CSV_TYPE,
        expected,
      ]);
      expectVaryAccept(res);
      expect(res.headers.link).toBeUndefined();
      // A download, named after the collection: a browser saves it.
      expect(res.headers['content-disposition']).toBe('attachment; filename="marbles.csv"');
    }
  });

  it('should keep JSON where Accept ranks text/csv lower, or names it only through a wildcard', async () => {
    for (const accept of ['application/json, text/csv', 'text/csv;q=0.5, */*', 'text/*', '*/*']) {
      const res = await http().get('/api/demo/marbles/1').set('Accept', accept);
      expect([accept, res.headers['content-type']]).toEqual([
        accept,
        accept === 'text/*' ? 'application/xml; charset=utf-8' : JSON_TYPE,
      ]);
    }
  });

  it('should filter, order, select and page as JSON does, next and previous in Link', async () => {
    const get = (path: string) => http().get(path).set('Host', 'localhost:3000');
    const query = 'price__lt=8&ordering=-price&only=id,name,user&page_size=2';
    const page2 = await get(`/api/demo/marbles.csv?${query}&page=2`);
    expect([page2.status, page2.text]).toEqual([
      200,
      csv('id,name,user.id,user.login', '6,-3.5,,', "5,'-2+3,,"),
    ]);
    const json = await get(`/api/demo/marbles?${query}&page=2`);
    expect(json.body.results.map((m: { id: number }) => m.id)).toEqual([6, 5]);
    const base = `http://localhost:3000/api/demo/marbles.csv?${query}`;
    expect(page2.headers.link).toBe(`<${base}&page=3>; rel="next", <${base}&page=1>; rel="prev"`);
    const last = await get(`/api/demo/marbles?${query}&page=3&format=csv`);
    expect(last.text).toBe(csv('id,name,user.id,user.login', "4,'+A1,,", '1,Plain,1,ann'));
    expect(last.headers.link).toBe(
      `<http://localhost:3000/api/demo/marbles?${query}&page=2&format=csv>; rel="prev"`,
    );
    expect(await get(`/api/demo/marbles.csv?${query}&page=4`)).toMatchObject({
      text: csv('id,name,user.id,user.login'),
      headers: { link: `<${base}&page=3>; rel="prev"` },
    });
  });

  it('should answer an empty page with its header row, and except= with the other columns', async () => {
    const empty = await http().get('/api/demo/marbles.csv?name=none&except=user,description');
    expect(empty.text).toBe(
      csv('id,name,radius_mm,price,is_discounted,created_at,updated_at,picture'),
    );
  });

  it('should answer one record as one row, with its ETag', async () => {
    const res = await http().get('/api/demo/marbles/2.csv');
    expect([res.status, res.headers['content-type'], res.headers.etag, res.text]).toEqual([
      200,
      CSV_TYPE,
      '"2.1"',
      csv(MARBLE_HEADER, ROWS[1]),
    ]);
    expect(res.headers['content-disposition']).toBe('attachment; filename="marbles.csv"');
  });

  it('should answer errors of a CSV request in JSON', async () => {
    const cases: [string, number, unknown][] = [
      ['/api/demo/marbles/99.csv', 404, { message: 'Marble 99 not found.' }],
      [
        '/api/demo/marbles.csv?radius_mm=big',
        400,
        {
          message: 'Invalid query parameters.',
          errors: { radius_mm: ['"big" is not a valid integer.'] },
        },
      ],
    ];
    for (const [path, status, body] of cases) {
      const res = await http().get(path);
      expect([path, res.status, res.headers['content-type'], res.body]).toEqual([
        path,
        status,
        JSON_TYPE,
        body,
      ]);
      // An error is no download.
      expect(res.headers['content-disposition']).toBeUndefined();
    }
  });

  it('should refuse CSV for a write with 406 before it runs, and answer JSON to Accept: text/csv', async () => {
    const refused = await http().post('/api/demo/marbles.csv').send({ name: 'Never' });
    expect([refused.status, refused.body]).toEqual([
      406,
      { message: 'CSV answers reads (GET) of the collections only; use json or xml.' },
    ]);
    const created = await http()
      .post('/api/demo/marbles')
      .set('Accept', 'text/csv')
      .send({ name: 'Made' });
    expect([created.status, created.headers['content-type'], created.body.name]).toEqual([
      201,
      JSON_TYPE,
      'Made',
    ]);
    await http().delete(`/api/demo/marbles/${created.body.id}`).expect(204);
  });

  it('should not offer CSV for the change feed: 406 when asked by name, JSON to Accept: text/csv', async () => {
    for (const path of [
      '/api/demo/marbles/events.csv',
      '/api/demo/marbles/events?format=csv',
      '/api/events?format=csv',
    ]) {
      const res = await http().get(path);
      expect([path, res.status, res.headers['content-type'], res.body]).toEqual([
        path,
        406,
        JSON_TYPE,
        { message: 'CSV answers reads (GET) of the collections only; use json or xml.' },
      ]);
    }
    for (const path of ['/api/demo/marbles/events', '/api/events']) {
      const res = await http().get(path).set('Accept', 'text/csv');
      expect([path, res.status, res.headers['content-type']]).toEqual([path, 200, JSON_TYPE]);
      expect(res.body.results).toEqual(expect.any(Array));
    }
  });

  it('should answer a probe with its message as one column', async () => {
    const res = await http().get('/api/demo/emails/ping.csv');
    expect(res.text).toBe(csv('message', 'pong'));
  });
});

/** More movies than one batch of a streamed answer (500). */
const MANY = 1234;

describe('CSV: movies, the whole filtered set streamed', () => {
  const t = useApp({
    seed: {
      users: USERS,
      genres: [{ id: 1, name: 'Action' }],
      movies: Array.from({ length: MANY }, (_, i) =>
        movieRow(i + 1, `Movie ${String(i + 1).padStart(4, '0')}`, {
          main_genre_id: i === 0 ? 1 : null,
          price: '12.5',
        }),
      ),
      movies_users: movieLinks('user_id', [1, 1], [1, 2], [MANY, 2]),
    },
  });

  it('should write every movie in order, references flattened and to-many lists as JSON', async () => {
    const res = await t.http().get('/api/plain/movies.csv?ordering=-id');
    expect([res.status, res.headers['content-type']]).toEqual([200, CSV_TYPE]);
    expect(res.headers['content-disposition']).toBe('attachment; filename="movies.csv"');
    // Written as it is read: chunked, no length known in advance.
    expect([res.headers['transfer-encoding'], res.headers['content-length']]).toEqual([
      'chunked',
      undefined,
    ]);
    const lines = res.text.split('\r\n');
    expect(lines.length).toBe(MANY + 2);
    expect(lines[0]).toBe(
      'id,created_at,name,price,updated_at,main_genre.id,main_genre.name,genres,users',
    );
    const row = (id: number, genre: string, users: unknown[]) =>
      `${id},${T1_ISO},Movie ${String(id).padStart(4, '0')},12.5,${T2_ISO},${genre},[],` +
      `"${JSON.stringify(users).replace(/"/g, '""')}"`;
    expect(lines[1]).toBe(row(MANY, ',', [BOB]));
    expect(lines[MANY]).toBe(row(1, '1,Action', [ANN, BOB]));
    expect(lines[MANY + 1]).toBe('');
    const ids = lines.slice(1, -1).map((line) => Number(line.split(',')[0]));
    expect(ids).toEqual(Array.from({ length: MANY }, (_, i) => MANY - i));
  });

  it('should stream a filtered selection the same way', async () => {
    const res = await t.http().get('/api/plain/movies?format=csv&id__gte=1200&only=id,name');
    expect(res.text).toBe(
      csv(
        'id,name',
        ...Array.from({ length: MANY - 1199 }, (_, i) => `${i + 1200},Movie ${i + 1200}`),
      ),
    );
  });
});

describe('CSV: phone numbers', () => {
  const PHONES = [
    { id: 1, number: '+1 555 0100', user_id: 1 },
    { id: 2, number: '+15550101', user_id: 2 },
    { id: 3, number: '555-0102', user_id: 1 },
  ];
  const t = useApp({ seed: { users: USERS, phone_numbers: PHONES } });

  it("should escape a number written with spaces, which a spreadsheet would take for a formula, and leave E.164's as it is; the JSON has it raw", async () => {
    const res = await t.http().get('/api/demo/phone_numbers.csv?only=id,number');
    expect(res.status).toBe(200);
    expect(res.text).toBe(csv('id,number', "1,'+1 555 0100", '2,+15550101', '3,555-0102'));
    const json = await t.http().get('/api/demo/phone_numbers.json?only=id,number');
    expect(json.body.results).toEqual([
      { id: 1, number: '+1 555 0100' },
      { id: 2, number: '+15550101' },
      { id: 3, number: '555-0102' },
    ]);
  });
});
