/**
 * Links carry only hosts the operator allows. Without PUBLIC_URL, a request's Host (with
 * TRUST_PROXY, its X-Forwarded-Host) must be one of the machine's own names or ALLOWED_HOSTS, or
 * the request is refused with 400 before it runs; with PUBLIC_URL, every absolute link (Location,
 * next, previous) starts with it, whatever Host says.
 */
import request from 'supertest';
import { TestApp, useApp } from '../support/harness';
import { USERS, marbleRow } from '../support/fixtures';
import { expectError, expectXml, xmlMessage } from '../support/http';

const SEED = { users: USERS, marbles: [1, 2, 3].map((id) => marbleRow(id, `M${id}`)) };
/** The 400's message: the host, and the two settings that would let it in, with it as the example. */
const refusal = (host: string, name: string) =>
  `Host "${host}" is not a name of this service. If clients reach it by this name, add the name ` +
  `to ALLOWED_HOSTS (ALLOWED_HOSTS=${name}), or set PUBLIC_URL to the address clients use ` +
  `(PUBLIC_URL=http://${host}), and restart the service.`;
const refused = (host: string) => ({ message: refusal(host, host.replace(/:\d+$/, '')) });
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** A marble named `name` created with these request headers (Host, X-Forwarded-…). */
const createWith = (t: TestApp, headers: Record<string, string>, name: string) =>
  t.http().post('/api/demo/marbles').set(headers).send({ name });

describe("hosts: the default (loopback and the machine's own names)", () => {
  const t = useApp({ seedEach: SEED });

  it('should refuse another Host with 400 before the request runs, writing nothing', async () => {
    const res = await createWith(t, { Host: 'evil.example:1234' }, 'Poison');
    expectError(res, 400, refused('evil.example:1234'));
    expect(res.headers.location).toBeUndefined();
    expect((await t.stored('marbles')).map((m) => m.name)).toEqual(['M1', 'M2', 'M3']);
    const xml = await t.http().get('/api/demo/marbles.xml').set('Host', 'evil.example');
    expectXml(xml, 400);
    expect(xml.text).toBe(xmlMessage(refusal('evil.example', 'evil.example')));
    // A browser gets the page, with the same sentence.
    // (Not through t.http(): the OpenAPI document describes no HTML.)
    const page = await request(t.app.getHttpServer())
      .get('/api/demo/marbles')
      .set('Host', 'myserver.lan:3000')
      .set('Accept', BROWSER);
    expect([page.status, page.headers['content-type']]).toEqual([400, 'text/html; charset=utf-8']);
    expect(page.text).toContain(
      `<p class="error-message">${refusal('myserver.lan:3000', 'myserver.lan').replace(/"/g, '&quot;')}</p>`,
    );
    // An IPv6 address keeps its brackets; no Host at all names no example.
    expect((await t.http().get('/api/demo/marbles').set('Host', '[fe80::1]:3000')).body).toEqual({
      message: refusal('[fe80::1]:3000', '[fe80::1]'),
    });
  });

  it('should answer loopback names and write them into links', async () => {
    for (const host of ['localhost:3000', '127.0.0.1', '[::1]:8080', 'LOCALHOST']) {
      const res = await t.http().get('/api/demo/marbles?page_size=1').set('Host', host);
      expect([host, res.status, res.body.next]).toEqual([
        host,
        200,
        `http://${host.toLowerCase()}/api/demo/marbles?page_size=1&page=2`,
      ]);
    }
  });

  it('should ignore X-Forwarded-Host without TRUST_PROXY', async () => {
    const res = await createWith(
      t,
      { Host: 'localhost:3000', 'X-Forwarded-Host': 'evil.example' },
      'Kept',
    );
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://localhost:3000/api/demo/marbles/${res.body.id}`);
  });
});

describe('hosts: ALLOWED_HOSTS and TRUST_PROXY', () => {
  const t = useApp({
    seedEach: SEED,
    trustProxy: true,
    allowedHosts: ['api.example.com', 'edge.example.com:8443', '.example.org'],
  });

  it('should allow the names listed, a port where one is named, and subdomains of .domain', async () => {
    const cases: [string, number][] = [
      ['api.example.com', 200],
      ['api.example.com:9000', 200],
      ['edge.example.com:8443', 200],
      ['edge.example.com', 400],
      ['edge.example.com:8444', 400],
      ['example.org', 200],
      ['a.b.example.org', 200],
      ['badexample.org', 400],
      ['example.com', 400],
    ];
    const got = [];
    for (const [host] of cases) {
      got.push([host, (await t.http().get('/api/demo/marbles/1').set('Host', host)).status]);
    }
    expect(got).toEqual(cases);
  });

  it('should check X-Forwarded-Host and use it with X-Forwarded-Proto in links', async () => {
    const res = await createWith(
      t,
      {
        Host: '10.0.0.9:3000',
        'X-Forwarded-Host': 'api.example.com',
        'X-Forwarded-Proto': 'https',
      },
      'Forwarded',
    );
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`https://api.example.com/api/demo/marbles/${res.body.id}`);
    const evil = await t
      .http()
      .get('/api/demo/marbles')
      .set('Host', 'api.example.com')
      .set('X-Forwarded-Host', 'evil.example, api.example.com');
    expectError(evil, 400, refused('evil.example'));
  });
});

describe('hosts: ALLOWED_HOSTS=*', () => {
  const t = useApp({ seedEach: SEED, allowedHosts: ['*'] });

  it('should answer any Host and write it into links', async () => {
    const res = await t.http().get('/api/demo/marbles?page_size=2').set('Host', 'any.example:81');
    expect(res.body.next).toBe('http://any.example:81/api/demo/marbles?page_size=2&page=2');
  });
});

describe('hosts: PUBLIC_URL', () => {
  const t = useApp({ seedEach: SEED, publicUrl: 'https://records.example.com:8443/records' });

  it('should start every link with it, whatever Host says', async () => {
    const created = await createWith(t, { Host: 'evil.example:1234' }, 'Public');
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(
      `https://records.example.com:8443/records/api/demo/marbles/${created.body.id}`,
    );
    const page = await t
      .http()
      .get('/api/demo/marbles?page_size=1&page=2')
      .set('Host', 'x.example');
    expect([page.body.previous, page.body.next]).toEqual([
      'https://records.example.com:8443/records/api/demo/marbles?page_size=1&page=1',
      'https://records.example.com:8443/records/api/demo/marbles?page_size=1&page=3',
    ]);
  });
});
