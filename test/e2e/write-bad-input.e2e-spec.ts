/**
 * Hostile and broken request bodies (CONTRACT §4, §5): malformed JSON and XML, DTDs and
 * entities, unsupported content types, oversized bodies, lone surrogates, huge numbers and
 * special keys. Each answers the right 4xx in the negotiated format, never 500, leaks nothing,
 * and stores nothing. Search and filter values with LIKE wildcards are literal.
 */
import { parseStringPromise } from 'xml2js';
import { startApp, TestApp } from './harness';
import {
  VALIDATION_FAILED,
  UNKNOWN_MARBLE_FIELD,
  expectError,
  expectJson,
  expectNoLeak,
  expectXml,
  freshTables,
  marbleRow,
  seedGenres,
  seedUsers,
  stored,
  xmlDocument,
} from './write-helpers';

const MALFORMED_JSON = 'Malformed JSON in request body.';
const MALFORMED_XML = 'Malformed XML in request body.';
const DTD_REFUSED = 'Malformed XML: DTDs are not allowed.';
const TOO_LARGE = 'Request body is larger than 1048576 bytes.';

const AMBER = marbleRow(1, 'Amber');

describe('write: bad inputs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  beforeEach(async () => {
    await freshTables(t);
    await seedUsers(t);
    await seedGenres(t);
    await t.insert('marbles', [AMBER]);
  });

  function raw(
    method: 'post' | 'put' | 'patch' | 'delete',
    path: string,
    type: string,
    body: string,
  ) {
    return t.http()[method](path).set('Content-Type', type).send(body);
  }

  describe('malformed bodies', () => {
    it('should answer 400 to malformed JSON on every write route, storing nothing', async () => {
      const routes: ['post' | 'put' | 'patch' | 'delete', string][] = [
        ['post', '/api/demo/marbles'],
        ['put', '/api/demo/marbles'],
        ['patch', '/api/demo/marbles/1'],
        ['delete', '/api/demo/marbles'],
        ['patch', '/api/demo/marbles/1/adjust_price'],
        ['post', '/api/demo/emails'],
        ['post', '/api/plain/movies'],
      ];
      for (const [method, path] of routes) {
        for (const body of ['{"name": ', "{'name': 'x'}", '{"name": "x",}', 'name=x', '[1, 2']) {
          const res = await raw(method, path, 'application/json', body);
          expectError(res, 400, { message: MALFORMED_JSON });
        }
      }
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
      expect(await stored(t, 'emails')).toEqual([]);
      expect(await stored(t, 'movies')).toEqual([]);
    });

    it('should answer 400 to malformed XML, storing nothing', async () => {
      const bodies = [
        '<marble><name>x</marble>',
        '<marble><name>x</name>',
        '{"name": "x"}',
        '<marble><name>&undefined;</name></marble>',
        '<marble><name>a</name></marble><marble/>',
        '<marble><name>&#xD800;</name></marble>',
      ];
      const answers = [];
      for (const body of bodies) {
        const res = await raw('post', '/api/demo/marbles', 'application/xml', body);
        expectNoLeak(res);
        answers.push({ body, status: res.status, response: res.body });
      }
      expect(answers).toEqual(
        bodies.map((body) => ({ body, status: 400, response: { message: MALFORMED_XML } })),
      );
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });

    it('should name an XML element <__proto__> as an unknown field, in bulk updates too', async () => {
      const single = await raw(
        'post',
        '/api/demo/marbles',
        'application/xml',
        '<marble><name>Proto</name><__proto__><name>Polluted</name></__proto__></marble>',
      );
      expectError(single, 400, {
        message: VALIDATION_FAILED,
        errors: { ['__proto__']: ['Unknown field; marble has no such field.'] },
      });
      const bulk = await raw(
        'patch',
        '/api/demo/marbles',
        'application/xml',
        '<marbles type="array"><marble><__proto__><id type="integer">7</id></__proto__>' +
          '<radius-mm type="integer">9</radius-mm></marble></marbles>',
      );
      expect(bulk.status).toBe(400);
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });

    it('should answer 400 to a typed XML element whose text does not fit its type', async () => {
      const integer = await raw(
        'post',
        '/api/demo/marbles',
        'application/xml',
        '<marble><name>x</name><radius-mm type="integer">3.5</radius-mm></marble>',
      );
      expectError(integer, 400, { message: 'Malformed XML: <radius-mm> is not an integer.' });
      const flag = await raw(
        'post',
        '/api/demo/marbles',
        'text/xml',
        '<marble><name>x</name><is-discounted type="boolean">maybe</is-discounted></marble>',
      );
      expectError(flag, 400, { message: 'Malformed XML: <is-discounted> is not a boolean.' });
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });

    it('should refuse a billion-laughs document with 400 and store nothing', async () => {
      const lol =
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
        Array.from(
          { length: 9 },
          (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`,
        ).join('') +
        ']><marble><name>&lol9;</name></marble>';
      const res = await raw('post', '/api/demo/marbles', 'application/xml', lol);
      expectError(res, 400, { message: DTD_REFUSED });
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });

    it('should refuse an external entity with 400, read no file and store nothing', async () => {
      for (const [method, path] of [
        ['post', '/api/demo/marbles'],
        ['patch', '/api/demo/marbles/1'],
        ['put', '/api/demo/marbles'],
      ] as const) {
        const res = await raw(
          method,
          path,
          'application/xml',
          '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><marble><name>&e;</name></marble>',
        );
        expectError(res, 400, { message: DTD_REFUSED });
        expect(res.text).not.toContain('root:');
      }
      const bare = await raw(
        'post',
        '/api/demo/marbles',
        'text/xml',
        '<!DOCTYPE marble><marble><name>doc</name></marble>',
      );
      expectError(bare, 400, { message: DTD_REFUSED });
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });

    it('should answer 400 to a body that is not a record object', async () => {
      for (const body of ['null', '"text"', '42', 'true']) {
        const res = await raw('post', '/api/demo/marbles', 'application/json', body);
        expectError(res, 400, { message: 'Request body must be a marble object.' });
      }
      const none = await t.http().patch('/api/demo/marbles/1');
      expectError(none, 400, { message: 'Request body must be a marble object.' });
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });
  });

  describe('content type and size', () => {
    it('should answer 415 to a body of an unsupported content type', async () => {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/octet-stream',
      ]) {
        const res = await raw('post', '/api/demo/marbles', type, 'name=x');
        expectError(res, 415, {
          message: `Content type "${type.split(';')[0]}" is not supported; send application/json or application/xml.`,
        });
      }
      const patch = await raw('patch', '/api/demo/marbles/1', 'text/plain', '{"name":"y"}');
      expectJson(patch, 415);
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });

    it('should accept JSON with a charset and vendor +json types', async () => {
      const charset = await raw(
        'post',
        '/api/demo/marbles',
        'application/json; charset=utf-8',
        '{"name":"Charset"}',
      );
      expectJson(charset, 201);
      const vendor = await raw(
        'post',
        '/api/demo/marbles',
        'application/vnd.api+json',
        '{"name":"Vendor"}',
      );
      expectJson(vendor, 201);
      expect((await stored(t, 'marbles')).map((r) => r.name)).toEqual([
        'Amber',
        'Charset',
        'Vendor',
      ]);
    });

    it('should answer 413 to a body over 1 MiB, in JSON and XML', async () => {
      const huge = JSON.stringify({ name: 'Huge', description: 'd'.repeat(1024 * 1024) });
      const json = await raw('post', '/api/demo/marbles', 'application/json', huge);
      expectError(json, 413, { message: TOO_LARGE });

      const xml = await t
        .http()
        .post('/api/demo/marbles')
        .set('Accept', 'application/xml')
        .set('Content-Type', 'application/xml')
        .send(
          `<marble><name>Huge</name><description>${'d'.repeat(1024 * 1024)}</description></marble>`,
        );
      expectXml(xml, 413);
      expect(xml.text).toBe(xmlDocument(`<hash><message>${TOO_LARGE}</message></hash>`));

      const bulk = await raw(
        'post',
        '/api/demo/marbles',
        'application/json',
        JSON.stringify(
          Array.from({ length: 900 }, (_, i) => ({ name: `${i}`.padStart(1200, 'x') })),
        ),
      );
      expectError(bulk, 413, { message: TOO_LARGE });
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });

    it('should accept a body of exactly 1 MiB and refuse one byte more', async () => {
      const head = '{"name":"Near limit"';
      const exact = head + ' '.repeat(1024 * 1024 - head.length - 1) + '}';
      expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
      const over = head + ' '.repeat(1024 * 1024 - head.length) + '}';

      expectError(await raw('post', '/api/demo/marbles', 'application/json', over), 413, {
        message: TOO_LARGE,
      });
      expect(await stored(t, 'marbles')).toEqual([AMBER]);

      const res = await raw('post', '/api/demo/marbles', 'application/json', exact);
      expectJson(res, 201);
      expect(res.body.name).toBe('Near limit');
      expect((await stored(t, 'marbles')).map((r) => r.name)).toEqual(['Amber', 'Near limit']);
    });
  });

  describe('errors in the negotiated format', () => {
    it('should answer malformed JSON in XML when XML is accepted', async () => {
      const res = await t
        .http()
        .post('/api/demo/marbles')
        .set('Accept', 'application/xml')
        .set('Content-Type', 'application/json')
        .send('{"name":');
      expectXml(res, 400);
      expect(res.text).toBe(xmlDocument(`<hash><message>${MALFORMED_JSON}</message></hash>`));
    });

    it('should answer a validation error in XML for the .xml suffix', async () => {
      const res = await t.http().post('/api/demo/marbles.xml').send({ name: '', radius_mm: 0 });
      expectXml(res, 400);
      expect(res.text).toBe(
        xmlDocument(
          `<hash><message>${VALIDATION_FAILED}</message><errors>` +
            '<name type="array"><name>May not be blank.</name></name>' +
            '<radius-mm type="array"><radius-mm>Must be at least 1.</radius-mm></radius-mm></errors></hash>',
        ),
      );
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });

    it('should answer a bulk 422 in XML with null for the valid items', async () => {
      const res = await t
        .http()
        .post('/api/demo/marbles?format=xml')
        .send([{ name: 'Fine' }, { name: ' ' }]);
      expectXml(res, 422);
      expect(res.text).toBe(
        xmlDocument(
          '<hash><message>Some items are invalid; nothing was saved.</message><errors type="array">' +
            '<error nil="true"/><error><name type="array"><name>May not be blank.</name></name></error></errors></hash>',
        ),
      );
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });

    it('should answer 404, 415 and a DTD refusal in XML when text/xml is accepted', async () => {
      const missing = await t
        .http()
        .patch('/api/demo/marbles/5')
        .set('Accept', 'text/xml')
        .send({ name: 'x' });
      expectXml(missing, 404);
      expect(missing.text).toBe(xmlDocument('<hash><message>Marble 5 not found.</message></hash>'));

      const unsupported = await t
        .http()
        .post('/api/demo/marbles')
        .set('Accept', 'text/xml')
        .set('Content-Type', 'text/plain')
        .send('x');
      expectXml(unsupported, 415);
      expect(unsupported.text).toBe(
        xmlDocument(
          '<hash><message>Content type "text/plain" is not supported; send application/json or application/xml.</message></hash>',
        ),
      );

      const dtd = await t
        .http()
        .post('/api/demo/marbles')
        .set('Accept', 'application/xml')
        .set('Content-Type', 'application/xml')
        .send('<!DOCTYPE x [<!ENTITY e "e">]><marble><name>&e;</name></marble>');
      expectXml(dtd, 400);
      expect(dtd.text).toBe(xmlDocument(`<hash><message>${DTD_REFUSED}</message></hash>`));
    });

    it('should keep an XML error well-formed whatever field names the client sent', async () => {
      const res = await t
        .http()
        .post('/api/demo/marbles.xml')
        .send({ name: 'x', '<b>&"': 1, '1st field': 2 });
      expectXml(res, 400);
      expectNoLeak(res);
      await expect(parseStringPromise(res.text, { strict: true })).resolves.toBeDefined();
      expect(res.text).toContain(UNKNOWN_MARBLE_FIELD);
      expect(res.text).toContain(`<message>${VALIDATION_FAILED}</message>`);
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });
  });

  describe('strange values', () => {
    it('should answer 400, not 500, to lone surrogates in JSON strings', async () => {
      const cases: [string, string, string][] = [
        ['/api/demo/marbles', '{"name":"\\ud800"}', 'name'],
        ['/api/demo/marbles', '{"name":"ok","description":"tail \\udfff"}', 'description'],
        ['/api/demo/emails', '{"email":"\\ud800@example.com","user_id":1}', 'email'],
        ['/api/demo/phone_numbers', '{"number":"555 \\ud800","user_id":1}', 'number'],
        ['/api/plain/movies', '{"name":"\\udc00 film"}', 'name'],
      ];
      const answers = [];
      for (const [path, body] of cases) {
        const res = await raw('post', path, 'application/json', body);
        expectNoLeak(res);
        answers.push({
          path,
          body,
          status: res.status,
          message: res.body.message,
          fields: Object.keys(res.body.errors ?? {}),
        });
      }
      expect(answers).toEqual(
        cases.map(([path, body, field]) => ({
          path,
          body,
          status: 400,
          message: VALIDATION_FAILED,
          fields: [field],
        })),
      );
      const update = await raw(
        'patch',
        '/api/demo/marbles/1',
        'application/json',
        '{"name":"\\ud83d"}',
      );
      expectError(update, 400, { message: VALIDATION_FAILED, errors: { name: expect.any(Array) } });
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
      expect(await stored(t, 'emails')).toEqual([]);
    });

    it('should keep a well-formed surrogate pair', async () => {
      const res = await raw(
        'post',
        '/api/demo/marbles',
        'application/json',
        '{"name":"\\ud83d\\ude00 smile"}',
      );
      expectJson(res, 201);
      expect(res.body.name).toBe('😀 smile');
      expect((await stored(t, 'marbles'))[1].name).toBe('😀 smile');
    });

    it('should answer 400, not 500, to huge integers', async () => {
      const cases: [
        string,
        'post' | 'patch' | 'put' | 'delete',
        unknown,
        Record<string, unknown>,
      ][] = [
        [
          '/api/demo/marbles',
          'post',
          { name: 'a', radius_mm: 1e20 },
          { radius_mm: ['Must be at most 2147483647.'] },
        ],
        [
          '/api/demo/marbles',
          'post',
          { name: 'b', user_id: 99999999999 },
          { user_id: ['Must be at most 2147483647.'] },
        ],
        [
          '/api/demo/marbles/1',
          'patch',
          { radius_mm: 2147483648 },
          { radius_mm: ['Must be at most 2147483647.'] },
        ],
        [
          '/api/demo/emails',
          'post',
          { email: 'big@example.com', user_id: 99999999999 },
          { user_id: ['Must be at most 2147483647.'] },
        ],
        [
          '/api/plain/movies',
          'post',
          { name: 'c', main_genre_id: 1e20 },
          { main_genre_id: ['Must be at most 2147483647.'] },
        ],
        [
          '/api/plain/movies',
          'post',
          { name: 'd', genre_ids: [99999999999] },
          { genre_ids: ['Must be a list of ids.'] },
        ],
        [
          '/api/demo/marbles',
          'post',
          { name: 'e', radius_mm: '99999999999999999999' },
          { radius_mm: expect.arrayContaining(['Must be an integer.']) },
        ],
      ];
      for (const [path, method, body, errors] of cases) {
        const res = await t
          .http()
          [method](path)
          .send(body as object);
        expect({ path, body, status: res.status, response: res.body }).toEqual({
          path,
          body,
          status: 400,
          response: { message: VALIDATION_FAILED, errors },
        });
        expectNoLeak(res);
      }
      const xml = await raw(
        'post',
        '/api/demo/marbles',
        'application/xml',
        '<marble><name>f</name><radius-mm type="integer">99999999999999999999999</radius-mm></marble>',
      );
      expectError(xml, 400, {
        message: VALIDATION_FAILED,
        errors: { radius_mm: ['Must be at most 2147483647.'] },
      });
      const infinite = await raw(
        'post',
        '/api/demo/marbles',
        'application/json',
        '{"name":"g","radius_mm":1e400}',
      );
      expectError(infinite, 400, {
        message: VALIDATION_FAILED,
        errors: { radius_mm: expect.arrayContaining(['Must be an integer.']) },
      });

      expectError(await t.http().delete('/api/demo/marbles').send([99999999999]), 400, {
        message: 'Bulk destroy requires an array of primary keys as input.',
      });
      expectError(
        await t
          .http()
          .put('/api/demo/marbles')
          .send([{ id: 1e20, name: 'h' }]),
        400,
        {
          message:
            'Bulk update requires an array of objects, each with the id of a record. Ids must be positive integers, each once.',
        },
      );
      expectError(await t.http().patch('/api/demo/marbles/99999999999').send({ name: 'i' }), 404, {
        message: 'Marble 99999999999 not found.',
      });
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
      expect(await stored(t, 'movies')).toEqual([]);
    });

    it('should name __proto__ and constructor as unknown fields and store nothing', async () => {
      const proto = await raw(
        'post',
        '/api/demo/marbles',
        'application/json',
        '{"__proto__": {"name": "Polluted"}, "name": "Proto"}',
      );
      expectError(proto, 400, {
        message: VALIDATION_FAILED,
        errors: { ['__proto__']: [UNKNOWN_MARBLE_FIELD] },
      });
      const ctor = await t.http().post('/api/demo/marbles').send({ constructor: 1, name: 'Ctor' });
      expectError(ctor, 400, {
        message: VALIDATION_FAILED,
        errors: { constructor: [UNKNOWN_MARBLE_FIELD] },
      });
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
      expect(({} as Record<string, unknown>).name).toBeUndefined();
    });

    it('should refuse objects and arrays where a scalar belongs', async () => {
      const res = await t
        .http()
        .post('/api/demo/marbles')
        .send({ name: { first: 'x' }, radius_mm: [3], is_discounted: {} });
      expectJson(res, 400);
      expectNoLeak(res);
      expect(res.body).toEqual({
        message: VALIDATION_FAILED,
        errors: {
          name: expect.arrayContaining(['Must be a string.']),
          radius_mm: expect.arrayContaining(['Must be an integer.']),
          is_discounted: ['Must be true or false.'],
        },
      });
      expect(await stored(t, 'marbles')).toEqual([AMBER]);
    });

    it('should store SQL-looking and markup text exactly', async () => {
      const name = "Robert'); DROP TABLE marbles;-- <script>&amp;";
      const res = await t
        .http()
        .post('/api/demo/marbles')
        .send({ name, description: '\\x00 "quoted" `tick`' });
      expectJson(res, 201);
      expect(res.body.name).toBe(name);
      expect((await stored(t, 'marbles')).map((r) => [r.name, r.description])).toEqual([
        ['Amber', ''],
        [name, '\\x00 "quoted" `tick`'],
      ]);
    });
  });

  describe('wildcards in search and filter values are literal', () => {
    beforeEach(async () => {
      for (const name of ['100% pure', '100 pure', 'a_b', 'axb', 'back\\slash', 'backslash']) {
        const res = await t
          .http()
          .post('/api/demo/marbles')
          .send({ name, description: name.toUpperCase() });
        expect(res.status).toBe(201);
      }
    });

    async function names(query: string): Promise<string[]> {
      const res = await t.http().get(`/api/demo/marbles?${query}`);
      expectJson(res, 200);
      return res.body.results.map((r: { name: string }) => r.name);
    }

    it('should store the names exactly as sent', async () => {
      expect((await stored(t, 'marbles')).map((r) => r.name)).toEqual([
        'Amber',
        '100% pure',
        '100 pure',
        'a_b',
        'axb',
        'back\\slash',
        'backslash',
      ]);
    });

    it('should match % literally', async () => {
      expect(await names('search=%25')).toEqual(['100% pure']);
      expect(await names('name__contains=0%25')).toEqual(['100% pure']);
    });

    it('should match _ literally', async () => {
      expect(await names('search=_')).toEqual(['a_b']);
      expect(await names('name__contains=a_')).toEqual(['a_b']);
      expect(await names('name=a_b')).toEqual(['a_b']);
    });

    it('should match \\ literally', async () => {
      expect(await names('search=%5C')).toEqual(['back\\slash']);
      expect(await names('name__contains=k%5Cs')).toEqual(['back\\slash']);
      expect(await names('name=back%5Cslash')).toEqual(['back\\slash']);
    });

    it('should answer 400 to a filter value of the wrong type', async () => {
      const res = await t.http().get('/api/demo/marbles?radius_mm=%25');
      expectJson(res, 400);
      expectNoLeak(res);
      expect(res.body.message).toBe('Invalid query parameters.');
      expect(Object.keys(res.body.errors)).toEqual(['radius_mm']);
    });
  });
});
