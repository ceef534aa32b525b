/**
 * Property-based tests (fast-check) against the real app: generated query strings (any keys,
 * every operator, unicode, extreme numbers, repeated parameters), paths, headers, and JSON and
 * XML bodies. Whatever comes in: never a 5xx, never a stack trace, SQL or driver text in a body,
 * always a JSON or XML body (or none) of the negotiated kind; and the read-only properties leave
 * the seed data as it was.
 *
 * Bounded: a modest number of runs per property and an explicit time limit. A failure prints the
 * seed and path of the smallest failing case; replay it with FC_SEED=<seed> (and FC_PATH=<path>);
 * FC_RUNS=<n> runs more cases (60 by default).
 */
import { fc, it } from '@fast-check/jest';
import request, { type Response } from 'supertest';
import { TestApp, useApp } from './support/harness';
import { expectNothingLeaked } from './support/http';
import { INDEX_PARAMETERS } from './support/routes';
import { GENRES, USERS, marbleRow, movieLinks, movieRow, numberedMarble } from './support/fixtures';

const SEED: Parameters<typeof useApp>[0] = {
  seed: {
    users: USERS,
    genres: GENRES,
    emails: [
      { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
      { id: 2, email: 'bob@example.org', is_primary: false, user_id: 2 },
    ],
    phone_numbers: [{ id: 1, number: '+1 555 0100', user_id: 1 }],
    marbles: [numberedMarble(1), numberedMarble(2), marbleRow(3, 'Ünïcødé ✓', { price: null })],
    movies: [movieRow(1, 'Open Water', { main_genre_id: 1 }), movieRow(2, 'Heat')],
    genres_movies: movieLinks('genre_id', [1, 1], [1, 2]),
    movies_users: movieLinks('user_id', [2, 3]),
  },
};

const COLLECTIONS = [
  '/api/demo/emails',
  '/api/demo/marbles',
  '/api/demo/phone_numbers',
  '/api/plain/movies',
];
const FIELDS = [
  'id',
  'name',
  'email',
  'number',
  'price',
  'radius_mm',
  'is_discounted',
  'is_primary',
  'created_at',
  'updated_at',
  'user_id',
  'user.login',
  'user.id',
  'main_genre.name',
  'description',
  'genres',
  'billing_user.login',
  ...INDEX_PARAMETERS,
  'format',
];
const OPERATORS = ['', '__in', '__lt', '__lte', '__gt', '__gte', '__contains', '__nope', '__'];

/** Values that have broken services before: extremes, odd numbers, SQL, markup, unicode. */
const NASTY = [
  '',
  'null',
  'NULL',
  'true',
  '0',
  '-0',
  '-1',
  '1e308',
  '-1e308',
  '1e-400',
  'NaN',
  'Infinity',
  '9007199254740993',
  '99999999999999999999999999',
  '2147483648',
  '0x1F',
  '1_000',
  '12.345',
  ' 1 ',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999+14:00',
  '2024-02-30',
  "' OR 1=1 --",
  '"; DROP TABLE marbles; --',
  '%',
  '_',
  '\\',
  '!',
  '<hash/>',
  ',,,',
  'a,b,,c',
  '-price,,name',
  '\u0000',
  '\uffff',
  '😀',
  'É',
  '\u202e',
];

const text = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ maxLength: 30 }),
  fc.double().map(String),
  fc.bigInt().map(String),
);

const key = fc.oneof(
  fc
    .tuple(fc.constantFrom(...FIELDS), fc.constantFrom(...OPERATORS))
    .map(([field, op]) => field + op),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** Query strings with any keys and values, repeated parameters among them. */
const queryString = fc
  .array(fc.tuple(key, text), { maxLength: 8 })
  .chain((pairs) => fc.constant(pairs).map((ps) => [...ps, ...ps.slice(0, 2)]))
  .map((pairs) =>
    pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
  );

/** Raw bits of a path, percent-encoded or left as malformed escapes and dot segments. */
const segment = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 15 }).map(encodeURIComponent),
  fc.constantFrom(
    '%',
    '%zz',
    '%E0%A4%A',
    '%00',
    '..',
    '.',
    '.json',
    '.xml',
    '.yaml',
    '0',
    '-1',
    '2147483648',
    '007',
    '1e3',
    'ping',
    'child_ping',
    'adjust_price',
    'toggle_is_discounted',
    '',
  ),
  fc.nat({ max: 5 }).map(String),
);
const path = fc
  .tuple(
    fc.constantFrom(...COLLECTIONS, '/api/demo', '/api', '/health', ''),
    fc.array(segment, { maxLength: 3 }),
  )
  .map(([base, segments]) => [base, ...segments].join('/') || '/');

/** Header values a client can send (printable ASCII and Latin-1). */
const headerValue = fc.oneof(
  fc.constantFrom(
    '*/*',
    'application/xml',
    'text/*;q=0.5, application/json;q=abc',
    'W/"1.1"',
    '"1.1"',
    '*',
    '',
  ),
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .map((c) => String.fromCharCode(c === 0x7f ? 0x20 : c)),
    maxLength: 40,
  }),
);
const headers = fc.record(
  {
    Accept: headerValue,
    'If-None-Match': headerValue,
    'If-Match': headerValue,
    'Idempotency-Key': headerValue,
    'Accept-Encoding': fc.constantFrom('gzip', 'identity', 'x', ''),
  },
  { requiredKeys: [] },
);

/** XML: trees of elements with the conventions' attributes, or arbitrary text. */
const xmlName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_.-]{0,12}$/);
const xmlTree: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .tuple(
        xmlName,
        fc.constantFrom(
          '',
          ' type="integer"',
          ' type="boolean"',
          ' type="array"',
          ' nil="true"',
          ' type="x"',
        ),
        text,
      )
      .map(([name, attr, value]) => `<${name}${attr}>${escapeXml(value)}</${name}>`),
    fc
      .tuple(xmlName, fc.array(tie('node'), { maxLength: 4 }))
      .map(([name, children]) => `<${name}>${children.join('')}</${name}>`),
  ),
})).node;
const xmlBody = fc.oneof(
  xmlTree,
  xmlTree.map((tree) => `<?xml version="1.0"?>${tree}`),
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    '<',
    '<a>',
    '<a></b>',
    '<a/><b/>',
    '<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>',
    '<a>&unknown;</a>',
    `${'<a>'.repeat(40)}${'</a>'.repeat(40)}`,
  ),
);
const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc
    .record(
      {
        name: text,
        price: text,
        radius_mm: fc.oneof(text, fc.double()),
        is_discounted: fc.jsonValue({ maxDepth: 0 }),
        user_id: fc.oneof(fc.integer(), text),
        email: text,
        number: text,
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  fc
    .array(fc.record({ id: fc.oneof(fc.integer(), text), name: text }, { requiredKeys: [] }), {
      maxLength: 4,
    })
    .map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 40 }),
);

/** Characters XML 1.0 allows: tab, line feed, carriage return and most of the rest. */
const XML_CHAR = new RegExp('[^\\t\\n\\r\\x20-\\ud7ff\\ue000-\\ufffd]', 'gu');

function escapeXml(value: string): string {
  return value
    .replace(XML_CHAR, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * The rules every answer keeps: no 5xx; a body that is JSON or XML as its Content-Type says, or
 * none; no stack trace, SQL or driver text in it (what the client sent, echoed in a message,
 * is taken out first).
 */
function expectSound(res: Response, sent: string[]): void {
  expect(res.status).toBeLessThan(500);
  let body = res.text ?? '';
  for (const value of sent) {
    for (const form of [value, escapeXml(value), JSON.stringify(value).slice(1, -1)]) {
      if (form.length > 2) body = body.split(form).join('');
    }
  }
  expectNothingLeaked(body);
  const type = String(res.headers['content-type'] ?? '');
  if (res.text && res.text.length > 0 && res.request.method !== 'HEAD') {
    if (type.startsWith('application/json')) expect(() => JSON.parse(res.text)).not.toThrow();
    else if (type.startsWith('application/xml')) expect(res.text.startsWith('<?xml')).toBe(true);
    else expect(type).toMatch(/^text\/html/); // Swagger UI's pages only
  }
}

/** Every row of every table, to compare before and after. */
async function snapshot(t: TestApp): Promise<unknown> {
  const tables = ['users', 'genres', 'emails', 'marbles', 'phone_numbers', 'movies'];
  const out: Record<string, unknown> = {};
  for (const table of tables) out[table] = await t.rows(table);
  out.links = [await t.links('genres_movies'), await t.links('movies_users')];
  return out;
}

const seed =
  process.env.FC_SEED === undefined
    ? {}
    : { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH };
const RUNS = {
  numRuns: Number(process.env.FC_RUNS ?? 60),
  interruptAfterTimeLimit: 100_000,
  ...seed,
};
const LIMIT = 150_000;

describe('properties: reads', () => {
  const t = useApp(SEED);
  let before: unknown;
  beforeAll(async () => {
    before = await snapshot(t);
  });

  it.prop(
    [fc.constantFrom(...COLLECTIONS), queryString, fc.constantFrom('', '.json', '.xml')],
    RUNS,
  )(
    'should answer any query string of an index without a 5xx or a leak',
    async (collection, query, suffix) => {
      const res = await t.http().get(`${collection}${suffix}?${query}`);
      expectSound(res, decoded(query));
      expect([200, 400, 406]).toContain(res.status);
    },
    LIMIT,
  );

  it.prop([path, fc.constantFrom('get', 'head', 'options' as const), headers], RUNS)(
    'should answer any path and headers of a read without a 5xx or a leak',
    async (url, method, sent) => {
      // Past the harness's OpenAPI check: a malformed path (`/api/demo/emails/%`) is a 400 that
      // no route of the document describes (reported; the property here is no 5xx, no leak).
      let req = request(t.app.getHttpServer())[method](url);
      for (const [name, value] of Object.entries(sent)) req = req.set(name, value as string);
      const res = await req;
      expectSound(res, [url, ...decoded(url), ...Object.values(sent).map(String)]);
    },
    LIMIT,
  );

  it.prop([fc.constantFrom(...COLLECTIONS), fc.nat({ max: 4 }), queryString, headers], RUNS)(
    'should answer any query and headers of a show without a 5xx or a leak',
    async (collection, id, query, sent) => {
      let req = t.http().get(`${collection}/${id}?${query}`);
      for (const [name, value] of Object.entries(sent)) req = req.set(name, value as string);
      const res = await req;
      expectSound(res, [...decoded(query), ...Object.values(sent).map(String)]);
    },
    LIMIT,
  );

  it('should have left the seed data as it was', async () => {
    expect(await snapshot(t)).toEqual(before);
  });
});

describe('properties: writes', () => {
  const t = useApp(SEED);
  const writes = fc.constantFrom(
    ...COLLECTIONS.flatMap((c) => [
      ['post', c],
      // Movies have no bulk routes. (A malformed body there is a 400, not the documented 405:
      // bodies are read before routing. Left out here, and reported.)
      ...(c.startsWith('/api/plain')
        ? []
        : [
            ['put', c],
            ['patch', c],
            ['delete', c],
          ]),
      ['put', `${c}/1`],
      ['patch', `${c}/2`],
      ['delete', `${c}/3`],
    ]),
    ['patch', '/api/demo/marbles/1/adjust_price'],
    ['patch', '/api/demo/marbles/2/toggle_is_discounted'],
  ) as fc.Arbitrary<['post' | 'put' | 'patch' | 'delete', string]>;

  it.prop(
    [
      writes,
      jsonBody,
      headers,
      fc.constantFrom('application/json', 'application/vnd.x+json', 'text/plain', ''),
    ],
    RUNS,
  )(
    'should answer any JSON body of any write without a 5xx or a leak',
    async ([method, url], body, sent, type) => {
      let req = t.http()[method](url);
      for (const [name, value] of Object.entries(sent)) req = req.set(name, value as string);
      if (type) req = req.set('Content-Type', type);
      const res = await req.send(body);
      expectSound(res, [body, ...Object.values(sent).map(String)]);
    },
    LIMIT,
  );

  it.prop([writes, xmlBody, fc.constantFrom('application/xml', 'text/xml')], RUNS)(
    'should answer any XML body of any write without a 5xx or a leak',
    async ([method, url], body, type) => {
      const res = await t.http()[method](url).set('Content-Type', type).send(body);
      expectSound(res, [body, ...body.split(/[<>]/)]);
    },
    LIMIT,
  );
});

/** The decoded keys and values of a query string, as a message might echo them. */
function decoded(query: string): string[] {
  return query.split(/[&=/?]/).map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
}
