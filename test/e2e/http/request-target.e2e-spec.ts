/**
 * Request lines and Host headers that are not what they claim (RFC 9112 §3.2): an absolute-form
 * request line's authority replaces Host and is checked like it, its path is the one routed and
 * linked; two Host headers, and a target that is neither a path nor an http(s) URL (but `*` for
 * OPTIONS), are 400 in the negotiated format. Sent on raw sockets: supertest writes neither.
 */
import { useApp } from '../support/harness';
import { USERS, marbleRow } from '../support/fixtures';
import { JSON_TYPE, XML_TYPE, xmlDocument, xmlMessage } from '../support/http';
import { useRawHttp } from '../support/raw-http';

const SEED = { users: USERS, marbles: [1, 2, 3].map((id) => marbleRow(id, `M${id}`)) };
const MARBLE_JSON = '{"name":"Poison"}';
const json = (message: string) => JSON.stringify({ message });
/** The 400 of an unknown host: the two settings that would let it in, with it as the example. */
const hostRefusal = (host: string) =>
  `Host "${host}" is not a name of this service. If clients reach it by this name, add the name ` +
  `to ALLOWED_HOSTS (ALLOWED_HOSTS=${host.replace(/:\d+$/, '')}), or set PUBLIC_URL to the ` +
  `address clients use (PUBLIC_URL=http://${host}), and restart the service.`;
const refusedHost = (host: string) => json(hostRefusal(host));
const NOT_A_TARGET = (target: string) =>
  json(`Request target "${target}" is neither a path nor an http(s) URL.`);
const TWO_HOSTS = 'Request has more than one Host header; send one.';

describe("request targets: the default hosts (the machine's own names)", () => {
  const t = useApp({ seedEach: SEED });
  const raw = useRawHttp(t);

  it('should route an absolute-form request by its path and link it with its authority, ignoring Host', async () => {
    const res = await raw.send('GET http://127.0.0.1:3000/api/demo/marbles?page_size=1 HTTP/1.1', [
      'Host: evil.example',
    ]);
    expect([res.status, res.headers['content-type']]).toEqual([200, JSON_TYPE]);
    expect(JSON.parse(res.body).next).toBe(
      'http://127.0.0.1:3000/api/demo/marbles?page_size=1&page=2',
    );

    const created = await raw.send(
      'POST HTTP://LOCALHOST:3000/api/demo/marbles HTTP/1.1',
      ['Host: evil.example', 'Content-Type: application/json'],
      MARBLE_JSON,
    );
    expect([created.status, created.headers.location]).toEqual([
      201,
      `http://localhost:3000/api/demo/marbles/${await t.lastId('marbles')}`,
    ]);
  });

  it('should refuse an absolute-form request whose authority is not allowed, whatever Host says', async () => {
    // The path's format suffix still chooses the format.
    for (const [target, type, body] of [
      ['/api/demo/marbles?page_size=1', JSON_TYPE, refusedHost('evil.example')],
      ['/api/demo/marbles.xml', XML_TYPE, xmlMessage(hostRefusal('evil.example'))],
    ]) {
      const res = await raw.send(`GET http://evil.example${target} HTTP/1.1`, ['Host: 127.0.0.1']);
      expect([res.status, res.headers['content-type'], res.body]).toEqual([400, type, body]);
    }
    const post = await raw.send(
      'POST http://evil.example:1234/api/demo/marbles HTTP/1.1',
      ['Host: 127.0.0.1', 'Content-Type: application/json'],
      MARBLE_JSON,
    );
    expect([post.status, post.body]).toEqual([400, refusedHost('evil.example:1234')]);
    expect((await t.stored('marbles')).map((m) => m.name)).toEqual(['M1', 'M2', 'M3']);
  });

  it('should take the path of an absolute-form target as given, "/" when it has none', async () => {
    const xml = await raw.send('GET http://127.0.0.1/api/demo/marbles/2.xml?only=id HTTP/1.1', [
      'Host: 127.0.0.1',
    ]);
    expect([xml.status, xml.body]).toEqual([
      200,
      xmlDocument('<hash><id type="integer">2</id></hash>'),
    ]);
    for (const target of ['http://localhost:81', 'http://localhost:81?format=json']) {
      const door = await raw.send(`GET ${target} HTTP/1.1`, ['Host: evil.example']);
      expect([target, door.status, JSON.parse(door.body).docs]).toEqual([
        target,
        200,
        'http://localhost:81/api/docs/',
      ]);
    }
  });

  it('should answer 400 to two Host headers, even two equal ones, in the negotiated format', async () => {
    for (const hosts of [
      ['Host: 127.0.0.1', 'Host: evil.example'],
      ['Host: 127.0.0.1', 'host: 127.0.0.1'],
    ]) {
      const res = await raw.send('GET /api/demo/marbles HTTP/1.1', hosts);
      expect([res.status, res.headers['content-type'], res.body]).toEqual([
        400,
        JSON_TYPE,
        json(TWO_HOSTS),
      ]);
    }
    const xml = await raw.send(
      'POST /api/demo/marbles HTTP/1.1',
      [
        'Host: 127.0.0.1',
        'Host: 127.0.0.1',
        'Accept: application/xml',
        'Content-Type: application/json',
      ],
      MARBLE_JSON,
    );
    expect([xml.status, xml.headers['content-type'], xml.body]).toEqual([
      400,
      XML_TYPE,
      xmlMessage(TWO_HOSTS),
    ]);
    expect((await t.stored('marbles')).map((m) => m.name)).toEqual(['M1', 'M2', 'M3']);
    // A browser gets the error page.
    const page = await raw.send('GET /api/demo/marbles HTTP/1.1', [
      'Host: 127.0.0.1',
      'Host: 127.0.0.1',
      'Accept: text/html',
    ]);
    expect([page.status, page.headers['content-type']]).toEqual([400, 'text/html; charset=utf-8']);
    expect(page.body).toContain(TWO_HOSTS);
  });

  it('should answer 400 to a target that is neither a path nor an http(s) URL', async () => {
    const cases: [string, string][] = [
      ['GET * HTTP/1.1', json('Request target "*" is for OPTIONS only.')],
      [
        'GET ftp://127.0.0.1/api/demo/marbles HTTP/1.1',
        NOT_A_TARGET('ftp://127.0.0.1/api/demo/marbles'),
      ],
      ['GET http://user@127.0.0.1/metrics HTTP/1.1', NOT_A_TARGET('http://user@127.0.0.1/metrics')],
      ['GET http:///api/demo/marbles HTTP/1.1', NOT_A_TARGET('http:///api/demo/marbles')],
      ['GET /api/demo/marbles#top HTTP/1.1', NOT_A_TARGET('/api/demo/marbles#top')],
      [
        'DELETE http://127.0.0.1/api/demo/marbles/1#x HTTP/1.1',
        NOT_A_TARGET('http://127.0.0.1/api/demo/marbles/1#x'),
      ],
    ];
    const answers = [];
    for (const [line] of cases) {
      const res = await raw.send(line, ['Host: 127.0.0.1']);
      answers.push([line, res.status, res.headers['content-type'], res.body]);
    }
    expect(answers).toEqual(cases.map(([line, body]) => [line, 400, JSON_TYPE, body]));
    const xml = await raw.send('GET ftp://x/api HTTP/1.1', ['Host: 127.0.0.1', 'Accept: text/xml']);
    expect([xml.status, xml.body]).toEqual([
      400,
      xmlMessage('Request target "ftp://x/api" is neither a path nor an http(s) URL.'),
    ]);
    expect(await t.stored('marbles')).toHaveLength(3);
  });

  it('should answer OPTIONS * with every method served, and leave Node to refuse what it cannot parse', async () => {
    const options = await raw.send('OPTIONS * HTTP/1.1', ['Host: 127.0.0.1']);
    expect([options.status, options.headers.allow, options.body]).toEqual([
      204,
      'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
      '',
    ]);
    const garbage = await raw.send('GET api/demo/marbles HTTP/1.1', ['Host: 127.0.0.1']);
    expect(garbage.status).toBe(400);
  });
});

describe('request targets: PUBLIC_URL', () => {
  const t = useApp({ seedEach: SEED, publicUrl: 'https://records.example.com/records' });
  const raw = useRawHttp(t);

  it('should route an absolute-form request by its path and link it with PUBLIC_URL', async () => {
    const res = await raw.send('GET http://evil.example/api/demo/marbles?page_size=1 HTTP/1.1', [
      'Host: 127.0.0.1',
    ]);
    expect([res.status, JSON.parse(res.body).next]).toEqual([
      200,
      'https://records.example.com/records/api/demo/marbles?page_size=1&page=2',
    ]);
    const door = await raw.send('GET http://evil.example/api HTTP/1.1', ['Host: other.example']);
    expect([door.status, JSON.parse(door.body).collections.marbles]).toEqual([
      200,
      'https://records.example.com/records/api/demo/marbles/',
    ]);
  });

  it('should still answer 400 to two Host headers', async () => {
    const res = await raw.send('GET /api/demo/marbles HTTP/1.1', [
      'Host: a.example',
      'Host: b.example',
    ]);
    expect([res.status, res.body]).toEqual([400, json(TWO_HOSTS)]);
  });
});

describe('request targets: ALLOWED_HOSTS=*', () => {
  const t = useApp({ seedEach: SEED, allowedHosts: ['*'] });
  const raw = useRawHttp(t);

  it('should link any host, but only a host: never text that reaches the path or query', async () => {
    const res = await raw.send('GET http://any.example:81/api/demo/marbles?page_size=1 HTTP/1.1', [
      'Host: 127.0.0.1',
    ]);
    expect(JSON.parse(res.body).next).toBe(
      'http://any.example:81/api/demo/marbles?page_size=1&page=2',
    );
    for (const host of ['evil.example/x?', 'a.example, b.example', 'a.example:port', 'a"b']) {
      const refused = await raw.send('GET /api/demo/marbles HTTP/1.1', [`Host: ${host}`]);
      expect([host, refused.status, refused.body]).toEqual([
        host,
        400,
        json(`Host "${host}" is not a host name or address (with an optional port).`),
      ]);
    }
  });
});
