/**
 * The front door: `GET /` and `GET /api` link to every collection the application serves, the
 * change feed of every collection (`/api/events`, when EVENTS_ENABLED) and its webhooks, the API documentation, the OpenAPI document and the health routes, in JSON or XML (negotiated as
 * every route is), with the scheme and host of the request. Each link answers.
 */
import { COLLECTIONS, COLLECTION_NAMES, loadConfig } from '../../sources';
import { useApp } from '../support/harness';
import { expectJson, expectXml, XML_DECLARATION } from '../support/http';

describe('the front door', () => {
  const t = useApp();

  /** The links for the host supertest sends (`127.0.0.1:<port>`). */
  function expected(host: string) {
    const origin = `http://${host}`;
    return {
      collections: Object.fromEntries(
        COLLECTIONS.map(({ declaration }) => [declaration.plural, `${origin}${declaration.path}/`]),
      ),
      events: `${origin}/api/events`,
      webhooks: `${origin}/api/webhooks`,
      operations: `${origin}/api/operations`,
      docs: `${origin}/api/docs/`,
      openapi: `${origin}/api/openapi.json`,
      health: { live: `${origin}/health/live`, ready: `${origin}/health/ready` },
    };
  }

  it.each(['/', '/api', '/api/'])('should answer GET %s with the links in JSON', async (path) => {
    const res = await t.http().get(path);
    expectJson(res, 200);
    expect(res.body).toEqual(expected(new URL(res.request.url).host));
    // In this order: the collections as the application lists them, then the rest.
    expect(Object.keys(res.body.collections)).toEqual(COLLECTION_NAMES);
    expect(Object.keys(res.body)).toEqual([
      'collections',
      'events',
      'webhooks',
      'operations',
      'docs',
      'openapi',
      'health',
    ]);
    expect(res.body.collections.movies).toBe(
      `http://${new URL(res.request.url).host}/api/plain/movies/`,
    );
  });

  it.each([
    ['Accept: application/xml', { accept: 'application/xml' }, '/'],
    ['format=xml', {}, '/api?format=xml'],
  ])('should answer in XML with %s', async (_, headers: Record<string, string>, path) => {
    const res = await t.request({ path, ...headers });
    expectXml(res, 200);
    const links = expected(new URL(res.request.url).host);
    expect(res.text).toBe(
      `${XML_DECLARATION}\n<hash>` +
        '<collections>' +
        Object.entries(links.collections)
          .map(([name, url]) => `<${name.replace(/_/g, '-')}>${url}</${name.replace(/_/g, '-')}>`)
          .join('') +
        '</collections>' +
        `<events>${links.events}</events>` +
        `<webhooks>${links.webhooks}</webhooks>` +
        `<operations>${links.operations}</operations>` +
        `<docs>${links.docs}</docs>` +
        `<openapi>${links.openapi}</openapi>` +
        `<health><live>${links.health.live}</live><ready>${links.health.ready}</ready></health>` +
        '</hash>\n',
    );
  });

  it('should take a format suffix on /api, as every route does', async () => {
    const xml = await t.http().get('/api.xml');
    expectXml(xml, 200);
    expect(xml.text).toContain(`<docs>${expected(new URL(xml.request.url).host).docs}</docs>`);
    const json = await t.http().get('/api.json');
    expectJson(json, 200);
    expect(json.body).toEqual(expected(new URL(json.request.url).host));
  });

  it('should answer 406 for a format other than json or xml, as every route does', async () => {
    const res = await t.http().get('/?format=yaml');
    expectJson(res, 406);
    expect(res.body).toEqual({ message: 'Format "yaml" is not available; use json or xml.' });
  });

  it('should link only to routes that answer', async () => {
    const res = await t.http().get('/api');
    const links = res.body as ReturnType<typeof expected>;
    const urls = [
      ...Object.values(links.collections),
      links.events,
      links.docs,
      links.openapi,
      links.health.live,
      links.health.ready,
    ];
    for (const url of urls) {
      const { pathname } = new URL(url);
      const answer = await t.http().get(pathname);
      expect([pathname, answer.status]).toEqual([pathname, 200]);
    }
  });

  it('should link the webhooks, which refuse everyone while no access control is configured', async () => {
    const res = await t.http().get('/api');
    const answer = await t.http().get(new URL(res.body.webhooks as string).pathname);
    expectJson(answer, 403);
    expect(answer.body).toEqual({
      message:
        'Webhook subscriptions need access control: set API_TOKEN (or AUTH_ISSUER / AUTH_JWKS_URL, ' +
        'with the webhooks:admin scope); WEBHOOK_ALLOW_PRIVATE=true opens them without it, for development.',
    });
    const create = await t.http().post('/api/webhooks').send({ url: 'https://example.com/hook' });
    expectJson(create, 403);
    expect(await t.rows('webhook_subscriptions')).toEqual([]);
  });

  it('should be described in the OpenAPI document, under both paths', async () => {
    const doc = (await t.http().get('/api/openapi.json')).body as {
      paths: Record<string, { get?: { operationId: string; tags: string[] } }>;
    };
    expect(doc.paths['/']?.get?.operationId).toBe('frontDoor');
    expect(doc.paths['/api']?.get?.operationId).toBe('apiFrontDoor');
    expect(doc.paths['/api']?.get?.tags).toEqual(['front-door']);
  });
});

describe('the front door with the change feed off (EVENTS_ENABLED=false)', () => {
  const t = useApp({ events: loadConfig({ EVENTS_ENABLED: 'false' }).events });

  it('should not link the feed, whose routes are not served', async () => {
    const res = await t.http().get('/api');
    expectJson(res, 200);
    expect(Object.keys(res.body)).toEqual([
      'collections',
      'operations',
      'docs',
      'openapi',
      'health',
    ]);
    expect((await t.http().get('/api/events')).status).toBe(404);
    expect((await t.http().get('/api/webhooks')).status).toBe(404);
  });
});
