/**
 * The API contract (issue 11): the OpenAPI document is valid, describes every route exactly, and a
 * client generated from it (openapi-typescript types, openapi-fetch calls) compiles and gets what
 * it was promised from the app holding the demo data. (Every response of every e2e suite is also
 * checked against the document: contract.ts, through harness.ts.)
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { RequestListener, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { ApiDocs, COLLECTIONS } from '../sources';
import { contractOf } from './support/contract';
import { useApp } from './support/harness';
import { describeDocumentExamples } from './support/examples';
import {
  INDEX_PARAMETERS,
  WEBHOOK_ROUTES,
  documentRoutes,
  eventRoutes,
  standardRoutes,
} from './support/routes';

const TOKEN = 'contract-test-token-0123456789';
const ROOT = join(__dirname, '..', '..');
const CLIENT = join(__dirname, 'typed-client');
/** Generous: tsc and openapi-typescript start as processes on a loaded machine. */
const TOOL_TIMEOUT = 180_000;
/** Tens of requests, some of them writes, on a loaded machine or a far MySQL. */
const REQUESTS_TIMEOUT = 120_000;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * What this suite uses of typed-client/client.ts. That file is compiled by tsc in the test itself,
 * against the types generated from the document first, so this suite does not import its types.
 */
type Outcomes = Promise<[string, number][]>;
interface TypedClient {
  client(baseUrl: string, fetch: typeof globalThis.fetch, token?: string): unknown;
  marbles(api: unknown): Outcomes;
  emails(api: unknown): Outcomes;
  phoneNumbers(api: unknown): Outcomes;
  movies(api: unknown): Outcomes;
}
interface UntypedApi {
  PATCH(path: string, init: object): Promise<{ response: Response; error?: unknown }>;
}

/** The media of a body, by their names. */
const JSON_AND_XML_MEDIA = { 'application/json': {}, 'application/xml': {} };

describe('The OpenAPI document and a client generated from it', () => {
  const t = useApp({
    apiToken: TOKEN,
    seed: async (app) => app.demoData.load(),
  });
  let doc: Json;

  beforeAll(async () => {
    doc = (await t.http().get('/api/openapi.json')).body as Json;
  });

  it(
    'should be a valid OpenAPI 3.0 document (swagger-parser) with the package version',
    () => {
      // swagger-parser is an ES module: it runs in a process of its own, as a user would run it.
      const file = join(CLIENT, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const validate = spawnSync(
        process.execPath,
        [
          '-e',
          `import('@apidevtools/swagger-parser').then((m) => m.default.validate(process.argv[1])).then(
          () => console.log('valid'), (e) => { console.log(e.message); process.exit(1); })`,
          file,
        ],
        { encoding: 'utf8', timeout: TOOL_TIMEOUT, cwd: ROOT },
      );
      expect({ status: validate.status, out: validate.stdout.trim() }).toEqual({
        status: 0,
        out: 'valid',
      });
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Json;
      expect(doc.openapi).toBe('3.0.3');
      expect(doc.info.version).toBe(pkg.version);
      expect(doc).toEqual(t.app.get(ApiDocs).serviceDocument);
    },
    TOOL_TIMEOUT,
  );

  it('should list every route, collections in the order of COLLECTIONS, with readable operationIds', () => {
    // Each collection's standard routes follow from its declaration; marbles adds two of its own.
    const own: Record<string, string[]> = {
      marbles: [
        'PATCH /api/demo/marbles/{id}/adjust_price adjustMarblePrice',
        'PATCH /api/demo/marbles/{id}/toggle_is_discounted toggleMarbleIsDiscounted',
      ],
    };
    const named = (plural: string) => COLLECTIONS.find((c) => c.declaration.plural === plural)!;
    expect(standardRoutes(named('emails'))).toEqual([
      'GET /api/demo/emails listEmails',
      'POST /api/demo/emails createEmail',
      'PUT /api/demo/emails bulkReplaceEmails',
      'PATCH /api/demo/emails bulkUpdateEmails',
      'DELETE /api/demo/emails bulkDestroyEmails',
      'OPTIONS /api/demo/emails describeEmails',
      'GET /api/demo/emails.csv listEmailsCsv',
      'GET /api/demo/emails/child_ping childPingEmails',
      'GET /api/demo/emails/ping pingEmails',
      'GET /api/demo/emails/{id} showEmail',
      'PUT /api/demo/emails/{id} replaceEmail',
      'PATCH /api/demo/emails/{id} updateEmail',
      'DELETE /api/demo/emails/{id} destroyEmail',
      'GET /api/demo/emails/{id}.csv showEmailCsv',
    ]);
    expect(standardRoutes(named('movies'))).toEqual([
      'GET /api/plain/movies listMovies',
      'POST /api/plain/movies createMovie',
      'OPTIONS /api/plain/movies describeMovies',
      'GET /api/plain/movies.csv listMoviesCsv',
      'GET /api/plain/movies/{id} showMovie',
      'PUT /api/plain/movies/{id} replaceMovie',
      'PATCH /api/plain/movies/{id} updateMovie',
      'DELETE /api/plain/movies/{id} destroyMovie',
      'GET /api/plain/movies/{id}.csv showMovieCsv',
    ]);
    expect(documentRoutes(doc as never)).toEqual([
      ...COLLECTIONS.flatMap((c) => [...standardRoutes(c), ...(own[c.declaration.plural] ?? [])]),
      'GET / frontDoor',
      'GET /api apiFrontDoor',
      // The document orders the routes of no collection by path: /api/operations after /api/events.
      ...eventRoutes(COLLECTIONS).flatMap((route) =>
        route === 'GET /api/events listEvents'
          ? [route, 'GET /api/operations describeOperations', 'POST /api/operations runOperations']
          : [route],
      ),
      ...WEBHOOK_ROUTES,
      'GET /health/live live',
      'GET /health/ready ready',
    ]);
    expect((doc.tags as Json[]).map((tag) => tag.name)).toEqual([
      ...COLLECTIONS.map((c) => c.declaration.plural),
      'front-door',
      'events',
      'operations',
      'webhooks',
      'health',
    ]);
    // The description names every collection, under its path.
    for (const { declaration } of COLLECTIONS) {
      const prefix = declaration.path.slice(0, declaration.path.lastIndexOf('/'));
      expect(doc.info.description).toMatch(
        new RegExp(`\\b${declaration.plural.replace(/_/g, ' ')}\\b[^.]* under ${prefix}\\b`, 'i'),
      );
    }
    for (const tag of doc.tags as Json[]) expect(tag.description).toMatch(/^\w.+\.$/);
  });

  it('should give each operation a summary, JSON and XML media, the token on writes and the statuses it answers', () => {
    /** The routes whose success may be a Server-Sent Events stream. */
    const streamed: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json) as [string, Json][]) {
        const where = `${method} ${path}`;
        expect({ where, summary: typeof op.summary }).toEqual({ where, summary: 'string' });
        const write = !['get', 'options'].includes(method);
        // The webhook subscriptions need the token for reads too (their secrets).
        const guarded = write || path.startsWith('/api/webhooks');
        expect({ where, security: op.security }).toEqual({
          where,
          security: guarded ? [{ bearer: [] }] : undefined,
        });
        const statuses = Object.keys(op.responses as Json);
        expect({
          where,
          has: ['406', ...(write ? ['401', '413', '415'] : [])].filter(
            (s) => !statuses.includes(s),
          ),
        }).toEqual({ where, has: [] });
        if (path.includes('{id}')) {
          expect(statuses).toContain('404');
          const id = (op.parameters as Json[]).find((p) => p.name === 'id')!;
          expect(id.schema.type).toBe('integer');
        }
        // Every body is JSON or XML; a read's `.csv` twin answers CSV (its errors JSON and XML);
        // the change feed's pages may also be asked for as a stream.
        const media = (content: unknown) => ({ where, media: Object.keys(content as Json) });
        if (op.requestBody) {
          expect(media(op.requestBody.content)).toEqual(media(JSON_AND_XML_MEDIA));
        }
        const csv = path.endsWith('.csv');
        const [first] = Object.keys(op.responses as Json);
        for (const [status, response] of Object.entries(op.responses as Json) as [string, Json][]) {
          if (!response.content) continue;
          const feed = status === '200' && /\/events$/.test(path);
          if (feed) streamed.push(`${method.toUpperCase()} ${path}`);
          expect(media(response.content)).toEqual(
            csv && status === first
              ? media({ 'text/csv': {} })
              : feed
                ? media({ ...JSON_AND_XML_MEDIA, 'text/event-stream': {} })
                : media(JSON_AND_XML_MEDIA),
          );
        }
      }
    }
    // Both forms of the change feed, and no other route.
    expect(streamed.sort()).toEqual(
      eventRoutes(COLLECTIONS)
        .map((route) => route.split(' ').slice(0, 2).join(' '))
        .sort(),
    );
    const stream = doc.paths['/api/events'].get.responses['200'].content['text/event-stream'];
    expect(stream.schema.type).toBe('string');
    expect(stream.example).toMatch(
      /^: events\n\nid: 42\nevent: updated\ndata: \{.*\}\n\n: heartbeat\n\n$/,
    );
    const marbles = doc.paths['/api/demo/marbles'];
    expect(Object.keys(marbles.get.responses)).toEqual(['200', '304', '400', '406', '503']);
    expect(Object.keys(marbles.post.responses)).toEqual([
      '201',
      '400',
      '401',
      '406',
      '409',
      '413',
      '415',
      '422',
      '503',
    ]);
    // 422: invalid bulk items, or an Idempotency-Key used for another request.
    expect(doc.components.responses.InvalidItems.content['application/json'].schema).toEqual({
      anyOf: [{ $ref: '#/components/schemas/BulkError' }, { $ref: '#/components/schemas/Error' }],
    });
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
  });

  it('should describe the bodies: create, partial update, adjust_price {price}, the bulk forms, the envelope', () => {
    const schemas = doc.components.schemas as Json;
    expect(schemas.MarbleCreate.required).toEqual(['name']);
    expect(schemas.MarbleUpdate.required).toBeUndefined();
    expect(schemas.MarbleBulkUpdate.required).toEqual(['id']);
    expect(schemas.MarblesPage.required).toEqual([
      'count',
      'page',
      'page_size',
      'total_pages',
      'results',
    ]);
    expect(schemas.Marble.required).toEqual([
      'id',
      'name',
      'radius_mm',
      'price',
      'is_discounted',
      'created_at',
      'updated_at',
      'description',
      'picture',
    ]);
    // A reference every record has (an e-mail's owner: user_id is required) is required too.
    expect(schemas.Email.required).toEqual(['id', 'email', 'is_primary', 'user']);
    expect(schemas.Email.properties.user).toEqual({ $ref: '#/components/schemas/UserSummary' });
    // Create: which shape answers an object body, which an array body.
    const created = doc.paths['/api/demo/emails'].post.responses['201'].content['application/json'];
    expect(created.schema).toEqual({
      oneOf: [
        {
          allOf: [{ $ref: '#/components/schemas/Email' }],
          description: 'The answer to an object body: the new email.',
        },
        {
          allOf: [{ $ref: '#/components/schemas/EmailBulkResult' }],
          description: 'The answer to an array body: `{message, records}`.',
        },
      ],
    });
    const adjust = doc.paths['/api/demo/marbles/{id}/adjust_price'].patch;
    expect(adjust.requestBody.content['application/json']).toMatchObject({
      schema: { required: ['price'], properties: { price: { type: 'string' } } },
      example: { price: '12.5' },
    });
    expect(adjust.requestBody.content['application/xml'].example).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<marble><price>12.5</price></marble>\n',
    );
    expect(Object.keys(adjust.responses)).toEqual([
      '200',
      '400',
      '401',
      '404',
      '406',
      '409',
      '412',
      '413',
      '415',
      '422',
      '428',
      '503',
    ]);
    const patch = doc.paths['/api/demo/marbles/{id}'].patch;
    expect(patch.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/MarbleUpdate',
    });
    const names = (op: Json) => (op.parameters as Json[]).map((p) => p.name ?? p.$ref);
    expect(names(doc.paths['/api/plain/movies'].get)).not.toContain('page');
    expect(names(doc.paths['/api/demo/marbles'].get).slice(0, 7)).toEqual([
      ...INDEX_PARAMETERS,
      'fields',
    ]);
    expect(names(doc.paths['/api/demo/marbles'].get)).toEqual(
      expect.arrayContaining([
        'price__lt',
        'name__contains',
        'user.login',
        'user_id__in',
        'is_discounted',
      ]),
    );
    const xmlPage = doc.paths['/api/demo/marbles'].get.responses['200'].content['application/xml'];
    expect(xmlPage.example).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<hash><count type="integer">1<\/count>/,
    );
  });

  it(
    'should tell a response the document does not describe',
    async () => {
      const contract = contractOf(t.app.get(ApiDocs).serviceDocument);
      const res = await t.http().get('/api/demo/marbles/1');
      const wrong = {
        ...res,
        status: 200,
        headers: res.headers,
        body: { ...res.body, radius_mm: '7' },
      };
      expect(await contract.check('GET', '/api/demo/marbles/1', wrong as Response)).toMatch(
        /radius_mm.*must be integer/,
      );
      const missing = { ...res, body: { id: 1 } };
      expect(await contract.check('GET', '/api/demo/marbles/1', missing as Response)).toMatch(
        /required/,
      );
      expect(
        await contract.check('GET', '/api/demo/marbles/1?only=id', missing as Response),
      ).toBeUndefined();
      expect(
        await contract.check('GET', '/api/demo/marbles/1', { ...res, status: 418 } as Response),
      ).toMatch(/status not documented/);
      const xml = await t.http().get('/api/demo/marbles/1.xml');
      const bad = { ...xml, text: xml.text.replace('<radius-mm type="integer">', '<radius-mm>') };
      expect(await contract.check('GET', '/api/demo/marbles/1.xml', bad as Response)).toMatch(
        /radius_mm.*must be integer/,
      );
    },
    REQUESTS_TIMEOUT,
  );

  it(
    'should generate TypeScript types (openapi-typescript), compile a typed client (tsc) and answer every call it makes',
    async () => {
      const file = join(CLIENT, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const generate = spawnSync(
        process.execPath,
        [
          join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
          file,
          '-o',
          join(CLIENT, 'openapi.d.ts'),
          // Fields with a default stay optional in request bodies (README, Typed clients).
          '--default-non-nullable=false',
        ],
        { encoding: 'utf8', timeout: TOOL_TIMEOUT },
      );
      expect({ status: generate.status, stderr: generate.status ? generate.stderr : '' }).toEqual({
        status: 0,
        stderr: '',
      });
      const tsc = spawnSync(
        process.execPath,
        [
          join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
          '-p',
          join(CLIENT, 'tsconfig.json'),
        ],
        { encoding: 'utf8', timeout: TOOL_TIMEOUT },
      );
      expect({ status: tsc.status, out: tsc.stdout }).toEqual({ status: 0, out: '' });

      // A server of its own over the app's Express handler: supertest's stays untouched.
      const server = createServer(t.app.getHttpAdapter().getInstance() as RequestListener);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const contract = contractOf(t.app.get(ApiDocs).serviceDocument);
      const problems: string[] = [];
      // Every answer the client gets is checked against the document too.
      const checkedFetch: typeof fetch = async (input, init) => {
        const request = input instanceof Request ? input : new Request(input, init);
        const response = await fetch(request);
        const text = await response.clone().text();
        const type = response.headers.get('content-type') ?? '';
        const url = new URL(request.url);
        const problem = await contract.check(request.method, url.pathname + url.search, {
          status: response.status,
          headers: { 'content-type': type },
          text,
          body: type.startsWith('application/json') && text ? JSON.parse(text) : {},
        } as unknown as Response);
        if (problem) problems.push(problem);
        return response;
      };
      const typed = require('./typed-client/client') as TypedClient;
      const api = typed.client(base, checkedFetch, TOKEN);
      const outcomes = [
        ...(await typed.marbles(api)).map(([route, status]) => [`marbles ${route}`, status]),
        ...(await typed.emails(api)).map(([route, status]) => [`emails ${route}`, status]),
        ...(await typed.phoneNumbers(api)).map(([route, status]) => [
          `phone_numbers ${route}`,
          status,
        ]),
        ...(await typed.movies(api)).map(([route, status]) => [`movies ${route}`, status]),
      ];
      const expected = (route: string) =>
        /\b(create|bulk create)$/.test(route) ? 201 : /\bdestroy$/.test(route) ? 204 : 200;
      expect(outcomes).toEqual(outcomes.map(([route]) => [route, expected(route as string)]));
      expect(outcomes).toHaveLength(13 + 13 + 13 + 7);
      expect(problems).toEqual([]);
      // Without the token, a typed write is refused as the document says.
      const anonymous = typed.client(base, checkedFetch) as UntypedApi;
      const refused = await anonymous.PATCH('/api/demo/marbles/{id}', {
        params: { path: { id: 1 } },
        body: { price: '3.5' },
      });
      expect(refused.response.status).toBe(401);
      expect(refused.error).toEqual({ message: expect.stringContaining('bearer token') });
      expect(problems).toEqual([]);
      await new Promise((resolve) => server.close(resolve));
    },
    TOOL_TIMEOUT * 3,
  );
});

describeDocumentExamples(COLLECTIONS, TOKEN);
