/**
 * OPTIONS on each collection: 200, an `Allow` header, and an OpenAPI 3 document of exactly that
 * collection's routes, whose input schema states the writable fields and their rules. And 405 with
 * `Allow` for methods a path does not serve.
 */
import { useApp } from '../support/harness';
import { RECORD_PATHS, movieRow } from '../support/fixtures';
import { JSON_TYPE, expectError, expectJson, expectXml } from '../support/http';

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>
  >;
  components: {
    schemas: Record<
      string,
      { type?: string; properties: Record<string, Record<string, unknown>>; required?: string[] }
    >;
  };
};

interface Expected {
  path: string;
  allow: string;
  routes: Record<string, string[]>;
  schemas: string[];
  input: Record<string, Record<string, unknown>>;
  required: string[];
}

const DEMO_ALLOW = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const COLLECTION_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options'];
const RECORD_METHODS = ['get', 'put', 'patch', 'delete'];

/** The schemas of a demo collection's routes: record, bodies, bulk forms, envelope, errors. */
function demoSchemas(singular: string, plural: string): string[] {
  return [
    'BulkError',
    'Error',
    'Message',
    singular,
    `${singular}BulkResult`,
    `${singular}BulkUpdate`,
    `${singular}Create`,
    `${singular}Update`,
    `${plural}Page`,
    'UserSummary',
  ].sort();
}

const COLLECTIONS: Expected[] = [
  {
    path: '/api/demo/marbles',
    allow: DEMO_ALLOW,
    routes: {
      '/api/demo/marbles': COLLECTION_METHODS,
      '/api/demo/marbles.csv': ['get'],
      '/api/demo/marbles/{id}': RECORD_METHODS,
      '/api/demo/marbles/{id}.csv': ['get'],
      // The change feed of the collection (docs/events.md).
      '/api/demo/marbles/events': ['get'],
      '/api/demo/marbles/{id}/adjust_price': ['patch'],
      '/api/demo/marbles/{id}/toggle_is_discounted': ['patch'],
    },
    schemas: demoSchemas('Marble', 'Marbles'),
    input: {
      name: { type: 'string', maxLength: 255 },
      radius_mm: { type: 'integer', minimum: 1, default: 1 },
      price: { type: 'string', nullable: true },
      is_discounted: { type: 'boolean', default: false },
      user_id: { type: 'integer', nullable: true },
      description: { type: 'string', default: '' },
    },
    required: ['name'],
  },
  {
    path: '/api/demo/emails',
    allow: DEMO_ALLOW,
    routes: {
      '/api/demo/emails': COLLECTION_METHODS,
      '/api/demo/emails.csv': ['get'],
      '/api/demo/emails/ping': ['get'],
      '/api/demo/emails/child_ping': ['get'],
      '/api/demo/emails/{id}': RECORD_METHODS,
      '/api/demo/emails/{id}.csv': ['get'],
      // The change feed of the collection (docs/events.md).
      '/api/demo/emails/events': ['get'],
    },
    schemas: demoSchemas('Email', 'Emails'),
    input: {
      email: { type: 'string', maxLength: 255, format: 'email' },
      is_primary: { type: 'boolean', default: false },
      user_id: { type: 'integer' },
    },
    required: ['email', 'user_id'],
  },
  {
    path: '/api/demo/phone_numbers',
    allow: DEMO_ALLOW,
    routes: {
      '/api/demo/phone_numbers': COLLECTION_METHODS,
      '/api/demo/phone_numbers.csv': ['get'],
      '/api/demo/phone_numbers/ping': ['get'],
      '/api/demo/phone_numbers/child_ping': ['get'],
      '/api/demo/phone_numbers/{id}': RECORD_METHODS,
      '/api/demo/phone_numbers/{id}.csv': ['get'],
      // The change feed of the collection (docs/events.md).
      '/api/demo/phone_numbers/events': ['get'],
    },
    schemas: demoSchemas('PhoneNumber', 'PhoneNumbers'),
    input: {
      number: { type: 'string', maxLength: 255 },
      user_id: { type: 'integer' },
    },
    required: ['number', 'user_id'],
  },
  {
    path: '/api/plain/movies',
    allow: 'GET, HEAD, POST, OPTIONS',
    routes: {
      '/api/plain/movies': ['get', 'post', 'options'],
      '/api/plain/movies.csv': ['get'],
      '/api/plain/movies/{id}': RECORD_METHODS,
      '/api/plain/movies/{id}.csv': ['get'],
      // The change feed of the collection (docs/events.md).
      '/api/plain/movies/events': ['get'],
    },
    // BulkError: the 422 of every write (invalid bulk items, or an Idempotency-Key reused).
    schemas: [
      'BulkError',
      'Error',
      'GenreSummary',
      'Movie',
      'MovieCreate',
      'MovieUpdate',
      'UserSummary',
    ],
    input: {
      name: { type: 'string', maxLength: 255 },
      price: { type: 'string', nullable: true },
      main_genre_id: { type: 'integer', nullable: true },
      genre_ids: { type: 'array', items: { type: 'integer' } },
      user_ids: { type: 'array', items: { type: 'integer' } },
    },
    required: ['name'],
  },
];

describe('write: OPTIONS and 405', () => {
  const t = useApp();

  for (const expected of COLLECTIONS) {
    describe(`OPTIONS ${expected.path}`, () => {
      let doc: Doc;

      it('should answer 200 with the Allow header and an OpenAPI 3 document', async () => {
        const res = await t.http().options(expected.path);
        expectJson(res, 200);
        expect(res.headers.allow).toBe(expected.allow);
        doc = res.body;
        expect(typeof doc.openapi).toBe('string');
        expect(doc.openapi.startsWith('3.')).toBe(true);
      });

      it("should document exactly the collection's routes and the schemas they use", async () => {
        const res = await t.http().options(expected.path);
        doc = res.body;
        const routes = Object.fromEntries(
          Object.entries(doc.paths).map(([path, item]) => [path, Object.keys(item).sort()]),
        );
        expect(routes).toEqual(
          Object.fromEntries(
            Object.entries(expected.routes).map(([path, methods]) => [path, [...methods].sort()]),
          ),
        );
        expect(Object.keys(doc.components.schemas).sort()).toEqual(expected.schemas);
      });

      it('should describe the writable fields, the required ones and their rules in the input schemas', async () => {
        const res = await t.http().options(expected.path);
        doc = res.body;
        const ref =
          doc.paths[`${expected.path}/{id}`].patch.requestBody!.content['application/json'].schema
            .$ref!;
        expect(ref).toMatch(/^#\/components\/schemas\//);
        // An update is partial (nothing required); a create requires the required fields.
        const update = doc.components.schemas[ref.split('/').pop()!];
        expect(update.required).toBeUndefined();
        const input =
          doc.components.schemas[
            ref
              .split('/')
              .pop()!
              .replace(/Update$/, 'Create')
          ];
        expect(input.type).toBe('object');
        expect(Object.keys(input.properties)).toEqual(Object.keys(expected.input));
        expect(Object.keys(update.properties)).toEqual(Object.keys(expected.input));
        expect(input.required).toEqual(expected.required);
        for (const [field, rules] of Object.entries(expected.input)) {
          expect({ field, schema: input.properties[field] }).toMatchObject({
            field,
            schema: rules,
          });
        }
        for (const readOnly of [
          'id',
          'created_at',
          'updated_at',
          'user',
          'billing_user',
          'picture',
          'genres',
          'users',
        ]) {
          expect(input.properties[readOnly]).toBeUndefined();
        }
      });

      it('should answer OPTIONS in XML when XML is negotiated', async () => {
        const res = await t.http().options(`${expected.path}.xml`);
        expectXml(res, 200);
        expect(res.headers.allow).toBe(expected.allow);
        expect(res.text).toMatch(
          /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<hash><openapi>3\.\d+\.\d+<\/openapi>/,
        );
      });
    });
  }

  describe('405', () => {
    beforeAll(async () => {
      await t.insert('movies', [movieRow(1, 'Voyage')]);
    });

    for (const method of ['put', 'patch', 'delete'] as const) {
      it(`should answer ${method.toUpperCase()} /api/plain/movies with 405 and Allow: GET, HEAD, POST, OPTIONS`, async () => {
        const res = await t.http()[method]('/api/plain/movies').send([1]);
        expectError(res, 405, {
          message: `Method ${method.toUpperCase()} is not allowed here; allowed: GET, HEAD, POST, OPTIONS.`,
        });
        expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
        expect((await t.stored('movies')).map((m) => m.name)).toEqual(['Voyage']);
      });
    }

    it('should answer 405 in XML when XML is negotiated', async () => {
      const res = await t.http().delete('/api/plain/movies').set('Accept', 'application/xml');
      expectXml(res, 405);
      expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      expect(res.text).toBe(
        '<?xml version="1.0" encoding="UTF-8"?>\n' +
          '<hash><message>Method DELETE is not allowed here; allowed: GET, HEAD, POST, OPTIONS.</message></hash>\n',
      );
    });

    it('should answer POST on a record with 405 and the methods the record serves', async () => {
      for (const path of RECORD_PATHS) {
        const res = await t.http().post(path).send({ name: 'x' });
        expect({
          path,
          status: res.status,
          allow: res.headers.allow,
          type: res.headers['content-type'],
        }).toEqual({
          path,
          status: 405,
          allow: 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS',
          type: JSON_TYPE,
        });
      }
    });

    it("should name a probe's own methods, not a record's (/ping is no record id)", async () => {
      for (const path of ['/api/demo/emails/ping', '/api/demo/phone_numbers/child_ping']) {
        const options = await t.http().options(path);
        const post = await t.http().post(path).send({});
        expect({
          path,
          options: [options.status, options.headers.allow],
          post: [post.status, post.headers.allow, post.body],
        }).toEqual({
          path,
          options: [204, 'GET, HEAD, OPTIONS'],
          post: [
            405,
            'GET, HEAD, OPTIONS',
            { message: 'Method POST is not allowed here; allowed: GET, HEAD, OPTIONS.' },
          ],
        });
      }
    });

    it("should refuse PUT, PATCH and DELETE on a feed or a probe with 405, not a record's 404", async () => {
      const paths = [
        '/api/demo/marbles/events',
        '/api/plain/movies/events',
        '/api/demo/emails/ping',
        '/api/demo/phone_numbers/child_ping',
      ];
      for (const path of paths) {
        for (const method of ['put', 'patch', 'delete'] as const) {
          const res = await t.http()[method](path).send({ name: 'x' });
          expect({ path, status: res.status, allow: res.headers.allow, body: res.body }).toEqual({
            path,
            status: 405,
            allow: 'GET, HEAD, OPTIONS',
            body: {
              message: `Method ${method.toUpperCase()} is not allowed here; allowed: GET, HEAD, OPTIONS.`,
            },
          });
        }
      }
      const xml = await t.http().delete('/api/demo/marbles/events.xml');
      expectXml(xml, 405);
      expect(xml.text).toBe(
        '<?xml version="1.0" encoding="UTF-8"?>\n' +
          '<hash><message>Method DELETE is not allowed here; allowed: GET, HEAD, OPTIONS.</message></hash>\n',
      );
    });
  });
});
