/**
 * Strange values in request bodies: errors in the negotiated format, lone surrogates, huge numbers
 * and special keys answer the right 4xx, never 500, leak nothing, and store nothing; markup and
 * SQL-looking text is stored exactly. Search and filter values with LIKE wildcards are literal.
 */
import { parseStringPromise } from 'xml2js';
import { Method, useApp } from '../support/harness';
import { GENRES, USERS, marbleRow } from '../support/fixtures';
import {
  UNKNOWN_MARBLE_FIELD,
  VALIDATION_FAILED,
  expectError,
  expectInvalid,
  expectJson,
  expectNoLeak,
  expectXml,
  xmlDocument,
  xmlMessage,
} from '../support/http';

const MALFORMED_JSON =
  'Malformed JSON in request body: unexpected end of input at line 1, column 9.';
const DTD_REFUSED = 'Malformed XML: DTDs are not allowed.';

const AMBER = marbleRow(1, 'Amber');

const MARBLES = '/api/demo/marbles';
const XML = 'application/xml';

describe('write: bad inputs', () => {
  const t = useApp({ seedEach: { users: USERS, genres: GENRES, marbles: [AMBER] } });
  const postJson = (body: string) => t.raw('post', MARBLES, 'application/json', body);

  describe('errors in the negotiated format', () => {
    /** `body` of Content-Type `type`, sent by a client that accepts `accept`. */
    const acceptingXml = (method: Method, path: string, type: string, body: string, accept = XML) =>
      t.raw(method, path, type, body).set('Accept', accept);

    it('should answer malformed JSON in XML when XML is accepted', async () => {
      const res = await acceptingXml('post', MARBLES, 'application/json', '{"name":');
      expectXml(res, 400);
      expect(res.text).toBe(xmlMessage(MALFORMED_JSON));
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
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });

    it('should answer a bulk 422 in XML with null for the valid items', async () => {
      const res = await t.request({
        method: 'post',
        path: '/api/demo/marbles?format=xml',
        body: [{ name: 'Fine' }, { name: ' ' }],
      });
      expectXml(res, 422);
      expect(res.text).toBe(
        xmlDocument(
          '<hash><message>Some items are invalid; nothing was saved.</message><errors type="array">' +
            '<error nil="true"/><error><name type="array"><name>May not be blank.</name></name></error></errors></hash>',
        ),
      );
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });

    it('should answer 404, 415 and a DTD refusal in XML when text/xml is accepted', async () => {
      const missing = await acceptingXml(
        'patch',
        `${MARBLES}/5`,
        'application/json',
        '{"name":"x"}',
        'text/xml',
      );
      expectXml(missing, 404);
      expect(missing.text).toBe(xmlMessage('Marble 5 not found.'));

      const unsupported = await acceptingXml('post', MARBLES, 'text/plain', 'x', 'text/xml');
      expectXml(unsupported, 415);
      expect(unsupported.text).toBe(
        xmlDocument(
          '<hash><message>Content type "text/plain" is not supported; send application/json or application/xml.</message></hash>',
        ),
      );

      const doctype = '<!DOCTYPE x [<!ENTITY e "e">]><marble><name>&e;</name></marble>';
      const dtd = await acceptingXml('post', MARBLES, XML, doctype);
      expectXml(dtd, 400);
      expect(dtd.text).toBe(xmlMessage(DTD_REFUSED));
    });

    it('should keep an XML error well-formed whatever field names the client sent', async () => {
      const res = await t.request({
        method: 'post',
        path: '/api/demo/marbles.xml',
        body: { name: 'x', '<b>&"': 1, '1st field': 2 },
      });
      expectXml(res, 400);
      expectNoLeak(res);
      await expect(parseStringPromise(res.text, { strict: true })).resolves.toBeDefined();
      expect(res.text).toContain(UNKNOWN_MARBLE_FIELD);
      expect(res.text).toContain(`<message>${VALIDATION_FAILED}</message>`);
      expect(await t.stored('marbles')).toEqual([AMBER]);
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
        const res = await t.raw('post', path, 'application/json', body);
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
      const update = await t.raw(
        'patch',
        '/api/demo/marbles/1',
        'application/json',
        '{"name":"\\ud83d"}',
      );
      expectInvalid(update, { name: expect.any(Array) });
      expect(await t.stored('marbles')).toEqual([AMBER]);
      expect(await t.stored('emails')).toEqual([]);
    });

    it('should keep a well-formed surrogate pair', async () => {
      const res = await postJson('{"name":"\\ud83d\\ude00 smile"}');
      expectJson(res, 201);
      expect(res.body.name).toBe('😀 smile');
      expect((await t.stored('marbles'))[1].name).toBe('😀 smile');
    });

    it('should answer 400, not 500, to huge integers', async () => {
      const TOO_BIG = 'Must be at most 2147483647.';
      const cases: [string, Method, unknown, Record<string, unknown>][] = [
        ['/api/demo/marbles', 'post', { name: 'a', radius_mm: 1e20 }, { radius_mm: [TOO_BIG] }],
        ['/api/demo/marbles', 'post', { name: 'b', user_id: 99999999999 }, { user_id: [TOO_BIG] }],
        ['/api/demo/marbles/1', 'patch', { radius_mm: 2147483648 }, { radius_mm: [TOO_BIG] }],
        [
          '/api/demo/emails',
          'post',
          { email: 'big@example.com', user_id: 99999999999 },
          { user_id: [TOO_BIG] },
        ],
        [
          '/api/plain/movies',
          'post',
          { name: 'c', main_genre_id: 1e20 },
          { main_genre_id: [TOO_BIG] },
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
        const { res } = await t.send(method, path, body);
        expect({ path, body, status: res.status, response: res.body }).toEqual({
          path,
          body,
          status: 400,
          response: { message: VALIDATION_FAILED, errors },
        });
        expectNoLeak(res);
      }
      const xml = await t.raw(
        'post',
        MARBLES,
        XML,
        '<marble><name>f</name><radius-mm type="integer">99999999999999999999999</radius-mm></marble>',
      );
      expectInvalid(xml, { radius_mm: [TOO_BIG] });
      const infinite = await postJson('{"name":"g","radius_mm":1e400}');
      expectInvalid(infinite, { radius_mm: expect.arrayContaining(['Must be an integer.']) });

      expectError(await t.http().delete('/api/demo/marbles').send([99999999999]), 400, {
        message:
          'Bulk destroy requires an array of primary keys as input. Ids must be positive ' +
          'integers: item 1 is 99999999999.',
      });
      expectError(
        await t.request({
          method: 'put',
          path: '/api/demo/marbles',
          body: [{ id: 1e20, name: 'h' }],
        }),
        400,
        {
          message:
            'Bulk update requires an array of objects, each with the id of a record. Ids must be ' +
            'positive integers, each once: item 1 has id 100000000000000000000.',
        },
      );
      expectError(await t.http().patch('/api/demo/marbles/99999999999').send({ name: 'i' }), 404, {
        message: 'Marble 99999999999 not found.',
      });
      expect(await t.stored('marbles')).toEqual([AMBER]);
      expect(await t.stored('movies')).toEqual([]);
    });

    it('should name __proto__ and constructor as unknown fields and store nothing', async () => {
      const proto = await postJson('{"__proto__": {"name": "Polluted"}, "name": "Proto"}');
      expectInvalid(proto, { ['__proto__']: [UNKNOWN_MARBLE_FIELD] });
      const ctor = await t.http().post('/api/demo/marbles').send({ constructor: 1, name: 'Ctor' });
      expectInvalid(ctor, { constructor: [UNKNOWN_MARBLE_FIELD] });
      expect(await t.stored('marbles')).toEqual([AMBER]);
      expect(({} as Record<string, unknown>).name).toBeUndefined();
    });

    it('should refuse objects and arrays where a scalar belongs', async () => {
      const res = await t.request({
        method: 'post',
        path: '/api/demo/marbles',
        body: { name: { first: 'x' }, radius_mm: [3], is_discounted: {} },
      });
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
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });

    it('should store SQL-looking and markup text exactly', async () => {
      const name = "Robert'); DROP TABLE marbles;-- <script>&amp;";
      const res = await t.request({
        method: 'post',
        path: '/api/demo/marbles',
        body: { name, description: '\\x00 "quoted" `tick`' },
      });
      expectJson(res, 201);
      expect(res.body.name).toBe(name);
      expect((await t.stored('marbles')).map((r) => [r.name, r.description])).toEqual([
        ['Amber', ''],
        [name, '\\x00 "quoted" `tick`'],
      ]);
    });
  });

  describe('wildcards in search and filter values are literal', () => {
    beforeEach(async () => {
      for (const name of ['100% pure', '100 pure', 'a_b', 'axb', 'back\\slash', 'backslash']) {
        const res = await t.request({
          method: 'post',
          path: '/api/demo/marbles',
          body: { name, description: name.toUpperCase() },
        });
        expect(res.status).toBe(201);
      }
    });

    async function names(query: string): Promise<string[]> {
      const res = await t.http().get(`/api/demo/marbles?${query}`);
      expectJson(res, 200);
      return res.body.results.map((r: { name: string }) => r.name);
    }

    it('should store the names exactly as sent', async () => {
      expect((await t.stored('marbles')).map((r) => r.name)).toEqual([
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
