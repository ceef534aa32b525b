/**
 * Hostile and broken request bodies: malformed JSON and XML, DTDs and entities, unsupported content
 * types and oversized bodies. Each answers the right 4xx, never 500, leaks nothing, and stores
 * nothing.
 */
import * as zlib from 'node:zlib';
import { CONTENT_ENCODINGS } from '../../../src/rest/http/request/body';
import { useApp } from '../support/harness';
import { GENRES, USERS, marbleRow } from '../support/fixtures';
import {
  expectInvalid,
  expectError,
  expectJson,
  expectNoLeak,
  expectXml,
  xmlMessage,
} from '../support/http';

/** Malformed JSON bodies and the error each gets: what is wrong, and where. */
const MALFORMED_JSON: [string, string][] = [
  ['{"name": ', 'unexpected end of input at line 1, column 10'],
  ["{'name': 'x'}", 'unexpected "\'" at line 1, column 2'],
  ['{"name": "x",}', 'unexpected "}" at line 1, column 14'],
  ['name=x', 'unexpected "a" at line 1, column 2'],
  ['[1, 2', 'unexpected end of input at line 1, column 6'],
  ['{\n  "name": "x",\n  "price": 1.}', 'unexpected "}" at line 3, column 14'],
  ['{"name": "a\\qb"}', 'bad escape in string at line 1, column 13'],
];
/** Malformed XML bodies and the error each gets: what is wrong, and where (as for JSON). */
const MALFORMED_XML: [string, string][] = [
  ['<marble><name>x</marble>', 'unexpected close tag at line 1, column 24'],
  ['<marble><name>x</name>', 'unclosed root tag at line 1, column 22'],
  ['{"name": "x"}', 'non-whitespace before first tag at line 1, column 1'],
  ['<marble><name>&undefined;</name></marble>', 'invalid character entity at line 1, column 25'],
  ['<marble><name>a</name></marble><marble/>', '2 root elements, where a body has one'],
  ['<marble><name>&#xD800;</name></marble>', 'invalid character entity at line 1, column 22'],
  ['<marble>\n  <name>x</nam>\n</marble>', 'unexpected close tag at line 2, column 15'],
  ['<!-- a comment -->', 'no element'],
];
const DTD_REFUSED = 'Malformed XML: DTDs are not allowed.';
const TOO_LARGE = 'Request body is larger than 1048576 bytes.';

const AMBER = marbleRow(1, 'Amber');

/** Content types the service does not read. */
const UNSUPPORTED_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
];

const MARBLES = '/api/demo/marbles';
const XML = 'application/xml';

describe('write: bad inputs', () => {
  const t = useApp({ seedEach: { users: USERS, genres: GENRES, marbles: [AMBER] } });
  const postXml = (body: string) => t.raw('post', MARBLES, XML, body);

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
        for (const [body, where] of MALFORMED_JSON) {
          const res = await t.raw(method, path, 'application/json', body);
          expectError(res, 400, { message: `Malformed JSON in request body: ${where}.` });
        }
      }
      expect(await t.stored('marbles')).toEqual([AMBER]);
      expect(await t.stored('emails')).toEqual([]);
      expect(await t.stored('movies')).toEqual([]);
    });

    it('should answer 400 to malformed XML, saying what is wrong and where, storing nothing', async () => {
      const answers = [];
      for (const [body] of MALFORMED_XML) {
        const res = await postXml(body);
        expectNoLeak(res);
        answers.push({ body, status: res.status, response: res.body });
      }
      expect(answers).toEqual(
        MALFORMED_XML.map(([body, where]) => ({
          body,
          status: 400,
          response: { message: `Malformed XML in request body: ${where}.` },
        })),
      );
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });

    it('should name an XML element <__proto__> as an unknown field, in bulk updates too', async () => {
      const single = await postXml(
        '<marble><name>Proto</name><__proto__><name>Polluted</name></__proto__></marble>',
      );
      expectInvalid(single, { ['__proto__']: ['Unknown field; marble has no such field.'] });
      const bulk = await t.raw(
        'patch',
        MARBLES,
        XML,
        '<marbles type="array"><marble><__proto__><id type="integer">7</id></__proto__>' +
          '<radius-mm type="integer">9</radius-mm></marble></marbles>',
      );
      expect(bulk.status).toBe(400);
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });

    it('should refuse an XML root that names another collection, naming the roots to use', async () => {
      const cases: [string, string, string, string][] = [
        [
          'post',
          MARBLES,
          '<phone><name>Jade</name></phone>',
          'XML root element <phone> does not name a marble: send <marble> or <hash>.',
        ],
        [
          'patch',
          `${MARBLES}/1`,
          '<phone-number><name>Jade</name></phone-number>',
          'XML root element <phone-number> does not name a marble: send <marble> or <hash>.',
        ],
        [
          'patch',
          `${MARBLES}/1/adjust_price`,
          '<email><price>3</price></email>',
          'XML root element <email> does not name a marble: send <marble> or <hash>.',
        ],
        [
          'post',
          MARBLES,
          '<phone-numbers type="array"><phone-number><name>J</name></phone-number></phone-numbers>',
          'XML root element <phone-numbers> does not name marbles: send <marbles>, <objects> or ' +
            '<hash> (with type="array").',
        ],
        [
          'delete',
          MARBLES,
          '<emails type="array"><id type="integer">1</id></emails>',
          'XML root element <emails> does not name marbles: send <marbles>, <ids>, <objects> or ' +
            '<hash> (with type="array").',
        ],
        [
          'post',
          '/api/demo/phone_numbers',
          '<marble><number>555</number><user-id type="integer">1</user-id></marble>',
          'XML root element <marble> does not name a phone number: send <phone-number> or <hash>.',
        ],
      ];
      for (const [method, path, body, message] of cases) {
        const res = await t.raw(method as 'post', path, XML, body);
        expect({ path, status: res.status, body: res.body }).toEqual({
          path,
          status: 400,
          body: { message },
        });
      }
      expect(await t.stored('marbles')).toEqual([AMBER]);
      // The collection's own names, either spelling, and the generic roots are read.
      for (const body of [
        '<phone_number><number>555 0100</number><user-id type="integer">1</user-id></phone_number>',
        '<phone-number><number>555 0101</number><user-id type="integer">1</user-id></phone-number>',
        '<hash><number>555 0102</number><user-id type="integer">1</user-id></hash>',
        '<objects type="array"><object><number>555 0103</number><user-id type="integer">1</user-id></object></objects>',
      ]) {
        const res = await t.raw('post', '/api/demo/phone_numbers', XML, body);
        expect({ body, status: res.status }).toEqual({ body, status: 201 });
      }
    });

    it('should name every bad field of an XML body, as it does for the same JSON body', async () => {
      // Typed elements whose text does not fit their type, beside other bad fields.
      const xml = await postXml(
        '<marble><name></name><radius-mm type="integer">3.5</radius-mm>' +
          '<is-discounted type="boolean">maybe</is-discounted><price>-2</price>' +
          '<colour>x</colour></marble>',
      );
      const json = await t
        .http()
        .post(MARBLES)
        .send({ name: '', radius_mm: '3.5', is_discounted: 'maybe', price: '-2', colour: 'x' });
      expect(json.status).toBe(400);
      expect(Object.keys(json.body.errors).sort()).toEqual([
        'colour',
        'is_discounted',
        'name',
        'price',
        'radius_mm',
      ]);
      expect(json.body.errors.radius_mm).toEqual(expect.arrayContaining(['Must be an integer.']));
      expect({ status: xml.status, body: xml.body }).toEqual({ status: 400, body: json.body });
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });

    it('should refuse a billion-laughs document with 400 and store nothing', async () => {
      const lol =
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
        Array.from(
          { length: 9 },
          (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`,
        ).join('') +
        ']><marble><name>&lol9;</name></marble>';
      const res = await postXml(lol);
      expectError(res, 400, { message: DTD_REFUSED });
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });

    it('should refuse an external entity with 400, read no file and store nothing', async () => {
      for (const [method, path] of [
        ['post', '/api/demo/marbles'],
        ['patch', '/api/demo/marbles/1'],
        ['put', '/api/demo/marbles'],
      ] as const) {
        const res = await t.raw(
          method,
          path,
          'application/xml',
          '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><marble><name>&e;</name></marble>',
        );
        expectError(res, 400, { message: DTD_REFUSED });
        expect(res.text).not.toContain('root:');
      }
      const bare = await t.raw(
        'post',
        '/api/demo/marbles',
        'text/xml',
        '<!DOCTYPE marble><marble><name>doc</name></marble>',
      );
      expectError(bare, 400, { message: DTD_REFUSED });
      const commented = await postXml(
        '<!-- a comment --><!DOCTYPE marble><marble><name>doc</name></marble>',
      );
      expectError(commented, 400, { message: DTD_REFUSED });
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });

    it('should read <!DOCTYPE inside a CDATA section or a comment as text, not as a DTD', async () => {
      const res = await postXml(
        '<marble><!-- <!ENTITY x "y"> --><name><![CDATA[<!DOCTYPE html> & <b>]]></name></marble>',
      );
      expect(res.status).toBe(201);
      expect(res.body.name).toBe('<!DOCTYPE html> & <b>');
    });

    it('should answer 400 to a body that is not a record object', async () => {
      for (const body of ['null', '"text"', '42', 'true']) {
        const res = await t.raw('post', MARBLES, 'application/json', body);
        expectError(res, 400, { message: 'Request body must be a marble object.' });
      }
      const none = await t.http().patch('/api/demo/marbles/1');
      expectError(none, 400, { message: 'Request body must be a marble object.' });
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });
  });

  describe('content type and size', () => {
    it('should answer 415 to a body of an unsupported content type', async () => {
      for (const type of UNSUPPORTED_TYPES) {
        const res = await t.raw('post', '/api/demo/marbles', type, 'name=x');
        expectError(res, 415, {
          message: `Content type "${type.split(';')[0]}" is not supported; send application/json or application/xml.`,
        });
      }
      const patch = await t.raw('patch', '/api/demo/marbles/1', 'text/plain', '{"name":"y"}');
      expectJson(patch, 415);
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });

    it('should take a compressed body, and say what is wrong with a Content-Encoding', async () => {
      const post = (encoding: string, body: Buffer) =>
        t
          .http()
          .post(MARBLES)
          .set('Content-Type', 'application/json')
          .set('Content-Encoding', encoding)
          // The bytes as they are (superagent would send a Buffer under a JSON type as JSON).
          .serialize((bytes: unknown) => bytes as string)
          .send(body);
      const plain = Buffer.from('{"name":"Squeezed"}');
      expectJson(await post('gzip', zlib.gzipSync(plain)), 201);
      expectError(await post('gzip', plain), 400, {
        message:
          'Request body is not gzip data, as its Content-Encoding says; send it compressed that ' +
          'way, or without Content-Encoding.',
      });
      expectError(await post('br', plain), 400, {
        message:
          'Request body is not br data, as its Content-Encoding says; send it compressed that ' +
          'way, or without Content-Encoding.',
      });
      // compress (LZW) is inflated by no Node; zstd by those whose zlib has it (Node 23.8 on).
      const unsupported = {
        message: `Content encoding is not supported; send the body as it is, or compressed with ${CONTENT_ENCODINGS}.`,
      };
      expectError(await post('compress', plain), 415, unsupported);
      // Node 20's types know no zstd: the function is looked up where the running Node has it.
      const zstd = (zlib as { zstdCompressSync?: (data: Buffer) => Buffer }).zstdCompressSync;
      if (CONTENT_ENCODINGS.includes('zstd') && zstd) {
        expectJson(await post('zstd', zstd(Buffer.from('{"name":"Squeezed more"}'))), 201);
      } else {
        expectError(await post('zstd', plain), 415, unsupported);
      }
      const stored = await t.stored('marbles');
      expect(stored.map((r) => r.name)).toEqual(
        CONTENT_ENCODINGS.includes('zstd')
          ? ['Amber', 'Squeezed', 'Squeezed more']
          : ['Amber', 'Squeezed'],
      );
      await t
        .http()
        .delete(MARBLES)
        .send(stored.slice(1).map((r) => r.id));
    });

    it('should accept JSON with a charset and vendor +json types', async () => {
      const charset = await t.raw(
        'post',
        '/api/demo/marbles',
        'application/json; charset=utf-8',
        '{"name":"Charset"}',
      );
      expectJson(charset, 201);
      const vendor = await t.raw(
        'post',
        '/api/demo/marbles',
        'application/vnd.api+json',
        '{"name":"Vendor"}',
      );
      expectJson(vendor, 201);
      expect((await t.stored('marbles')).map((r) => r.name)).toEqual([
        'Amber',
        'Charset',
        'Vendor',
      ]);
    });

    it('should answer 413 to a body over 1 MiB, in JSON and XML', async () => {
      const huge = JSON.stringify({ name: 'Huge', description: 'd'.repeat(1024 * 1024) });
      const json = await t.raw('post', MARBLES, 'application/json', huge);
      expectError(json, 413, { message: TOO_LARGE });

      const xml = await t.request({
        method: 'post',
        path: '/api/demo/marbles',
        accept: 'application/xml',
        type: 'application/xml',
        body: `<marble><name>Huge</name><description>${'d'.repeat(1024 * 1024)}</description></marble>`,
      });
      expectXml(xml, 413);
      expect(xml.text).toBe(xmlMessage(TOO_LARGE));

      const bulk = await t.raw(
        'post',
        MARBLES,
        'application/json',
        JSON.stringify(
          Array.from({ length: 900 }, (_, i) => ({ name: `${i}`.padStart(1200, 'x') })),
        ),
      );
      expectError(bulk, 413, { message: TOO_LARGE });
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });

    it('should accept a body of exactly 1 MiB and refuse one byte more', async () => {
      const head = '{"name":"Near limit"';
      const exact = head + ' '.repeat(1024 * 1024 - head.length - 1) + '}';
      expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
      const over = head + ' '.repeat(1024 * 1024 - head.length) + '}';

      expectError(await t.raw('post', MARBLES, 'application/json', over), 413, {
        message: TOO_LARGE,
      });
      expect(await t.stored('marbles')).toEqual([AMBER]);

      const res = await t.raw('post', MARBLES, 'application/json', exact);
      expectJson(res, 201);
      expect(res.body.name).toBe('Near limit');
      expect((await t.stored('marbles')).map((r) => r.name)).toEqual(['Amber', 'Near limit']);
    });
  });
});
