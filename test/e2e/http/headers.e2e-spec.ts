/**
 * Headers that mean what they say: an error answer carries no ETag (Express's own, a hash of the
 * error's body, is off: a client that kept it would send a tag that is no record's version); a
 * record's strong ETag and a list's weak one stay, with their 304s; CORS clients may read the
 * rate limit's headers, Retry-After and Link; two Authorization headers are refused with 400.
 */
import { useApp } from '../support/harness';
import { ONE_OF_EACH } from '../support/fixtures';
import { useRawHttp } from '../support/raw-http';
import { JSON_TYPE, XML_TYPE, xmlMessage } from '../support/http';

const API_TOKEN = 'static-api-token-0123456789';
const TOKEN = { Authorization: `Bearer ${API_TOKEN}` };
const DAY = 86_400;
const TWO_AUTHORIZATIONS =
  'Request has more than one Authorization header; send one credential per request.';

describe('headers that mean what they say', () => {
  const t = useApp({
    apiToken: API_TOKEN,
    corsOrigins: ['https://a.example'],
    trustProxy: true,
    rateLimits: { all: { limit: 2, windowSeconds: DAY } },
    seedEach: ONE_OF_EACH,
  });
  const raw = useRawHttp(t);
  /** Each request from an address of its own, unless `from` says otherwise: the limit is 2. */
  let address = 0;
  const from = () => ({ 'X-Forwarded-For': `198.51.100.${++address}` });

  it('should send no ETag with an error answer (400, 401, 404, 405, 406, 412, 429), in JSON and XML', async () => {
    const [id] = await t.ids('marbles');
    const errors = [
      await t.request({ path: '/api/demo/marbles?only=nope', headers: from() }),
      await t.request({ path: '/api/demo/marbles.xml?only=nope', headers: from() }),
      await t.request({ method: 'post', path: '/api/demo/marbles', body: {}, headers: from() }),
      await t.request({ path: '/api/demo/marbles/999999', headers: from() }),
      await t.request({ method: 'head', path: '/api/demo/marbles/999999', headers: from() }),
      await t.request({ path: '/api/demo/marbles.xml/999999', headers: from() }),
      await t.request({
        method: 'delete',
        path: '/api/demo/marbles/events',
        headers: { ...from(), ...TOKEN },
      }),
      await t.request({ path: '/api/demo/marbles.tsv', headers: from() }),
      await t.request({
        method: 'patch',
        path: `/api/demo/marbles/${id}`,
        body: { name: 'Changed' },
        headers: { ...from(), ...TOKEN, 'If-Match': `"${id}.99"` },
      }),
    ];
    const limited = from();
    await t.request({ path: '/api/demo/marbles', headers: limited });
    await t.request({ path: '/api/demo/marbles', headers: limited });
    errors.push(await t.request({ path: '/api/demo/marbles', headers: limited }));
    expect(errors.map((res) => res.status)).toEqual([
      400, 400, 401, 404, 404, 404, 405, 406, 412, 429,
    ]);
    for (const res of errors) {
      expect([res.status, res.headers.etag]).toEqual([res.status, undefined]);
    }
    // The 412 of a record that exists: still no tag, neither the record's nor the message's.
    expect(errors[8].body.message).toMatch(/^If-Match names version 99 of Marble /);
  });

  it("should keep a record's strong ETag and a list's weak one, each answering If-None-Match with 304", async () => {
    const [id] = await t.ids('marbles');
    const record = await t.request({ path: `/api/demo/marbles/${id}`, headers: from() });
    expect(record.headers.etag).toBe(`"${id}.1"`);
    const unchanged = await t.request({
      path: `/api/demo/marbles/${id}.xml`,
      headers: { ...from(), 'If-None-Match': record.headers.etag },
    });
    expect([unchanged.status, unchanged.headers.etag, unchanged.text]).toEqual([
      304,
      record.headers.etag,
      '',
    ]);
    const list = await t.request({ path: '/api/demo/marbles', headers: from() });
    expect(list.headers.etag).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
    const head = await t.request({ method: 'head', path: '/api/demo/marbles', headers: from() });
    expect(head.headers.etag).toBe(list.headers.etag);
    const listUnchanged = await t.request({
      path: '/api/demo/marbles',
      headers: { ...from(), 'If-None-Match': list.headers.etag },
    });
    expect([listUnchanged.status, listUnchanged.text]).toEqual([304, '']);
    // A write's answer that is no record carries no tag of its body.
    const bulk = await t.request({
      method: 'patch',
      path: '/api/demo/marbles',
      body: [{ id, radius_mm: 7 }],
      headers: { ...from(), ...TOKEN },
    });
    expect([bulk.status, bulk.headers.etag]).toEqual([200, undefined]);
  });

  it('should expose the rate limit, Retry-After and Link to a CORS client', async () => {
    const res = await t.request({
      path: '/api/demo/marbles',
      headers: { ...from(), Origin: 'https://a.example' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-expose-headers']).toBe(
      'Location,X-Request-Id,ETag,Retry-After,traceparent,tracestate,Idempotent-Replayed,Link,' +
        'RateLimit,RateLimit-Policy',
    );
    expect(res.headers.ratelimit).toMatch(/^"all";r=1;t=\d+$/);
  });

  it('should refuse two Authorization headers with 400 in the negotiated format, writing nothing', async () => {
    const before = await t.stored('marbles');
    const body = JSON.stringify({ name: 'Twice Authorized' });
    const cases: [string[], number, string, string][] = [
      [
        [`Authorization: Bearer ${API_TOKEN}`, 'Authorization: Bearer other-token'],
        400,
        JSON_TYPE,
        JSON.stringify({ message: TWO_AUTHORIZATIONS }),
      ],
      [
        ['Authorization: Bearer other-token', `authorization: Bearer ${API_TOKEN}`],
        400,
        JSON_TYPE,
        JSON.stringify({ message: TWO_AUTHORIZATIONS }),
      ],
      [
        [
          `Authorization: Bearer ${API_TOKEN}`,
          `Authorization: Bearer ${API_TOKEN}`,
          'Accept: application/xml',
        ],
        400,
        XML_TYPE,
        xmlMessage(TWO_AUTHORIZATIONS),
      ],
    ];
    for (const [headers, status, type, text] of cases) {
      const res = await raw.send(
        'POST /api/demo/marbles HTTP/1.1',
        [
          'Host: 127.0.0.1',
          `X-Forwarded-For: 198.51.100.${++address}`,
          'Content-Type: application/json',
          ...headers,
        ],
        body,
      );
      expect([res.status, res.headers['content-type'], res.body, res.headers.etag]).toEqual([
        status,
        type,
        text,
        undefined,
      ]);
    }
    // A read, open to all, is refused as well: the request is ambiguous wherever it goes.
    const read = await raw.send('GET /api/demo/marbles HTTP/1.1', [
      'Host: 127.0.0.1',
      `X-Forwarded-For: 198.51.100.${++address}`,
      'Authorization: Bearer a',
      'Authorization: Bearer b',
    ]);
    expect([read.status, read.body]).toEqual([
      400,
      JSON.stringify({ message: TWO_AUTHORIZATIONS }),
    ]);
    expect(await t.stored('marbles')).toEqual(before);
    // One header is served.
    const one = await raw.send(
      'POST /api/demo/marbles HTTP/1.1',
      [
        'Host: 127.0.0.1',
        `X-Forwarded-For: 198.51.100.${++address}`,
        'Content-Type: application/json',
        `Authorization: Bearer ${API_TOKEN}`,
      ],
      body,
    );
    expect(one.status).toBe(201);
  });
});
