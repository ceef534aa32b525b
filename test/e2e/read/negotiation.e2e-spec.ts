/**
 * Format negotiation on every GET route: path suffix, then `format=`, then Accept with q-values;
 * JSON by default; 406 for an explicit unsupported format; headers.
 */
import { useApp } from '../support/harness';
import {
  COLLECTION_PATHS,
  marbleRow,
  movieRow,
  onePageXml,
  userRows,
  movieLinks,
} from '../support/fixtures';
import {
  JSON_TYPE,
  XML_TYPE,
  expectMessage,
  itAnswersMessage,
  expectNegotiatedJson,
  expectNegotiatedXml,
  expectVaryAccept,
  xmlDocument,
  xmlMessage,
  expectExactXml,
} from '../support/http';

const PONG_JSON = '{"message":"pong"}';
const PONG_XML = xmlMessage('pong');
const CHILD_PONG_JSON = '{"message":"child pong"}';
const CHILD_PONG_XML = xmlMessage('child pong');

const EMAIL = { id: 1, email: 'ann@example.com', is_primary: true, user: { id: 1, login: 'ann' } };
const EMAIL_XML =
  '<id type="integer">1</id><email>ann@example.com</email><is-primary type="boolean">true</is-primary>' +
  '<user><id type="integer">1</id><login>ann</login></user>';

/** Every GET route of the service, without a suffix. */
const GET_ROUTES = [
  '/api/demo/emails',
  '/api/demo/emails/1',
  '/api/demo/emails/ping',
  '/api/demo/emails/child_ping',
  '/api/demo/phone_numbers',
  '/api/demo/phone_numbers/1',
  '/api/demo/phone_numbers/ping',
  '/api/demo/phone_numbers/child_ping',
  '/api/demo/marbles',
  '/api/demo/marbles/1',
  '/api/plain/movies',
  '/api/plain/movies/1',
];

/** Routes answered with an error: 404, 406, 404 and 400. */
const ERROR_ROUTES = [
  '/api/demo/marbles/99',
  '/api/demo/marbles.tsv',
  '/api/demo/nothing',
  '/api/demo/marbles?radius_mm=abc',
];

describe('read side: format negotiation', () => {
  const t = useApp({
    seed: {
      users: userRows('ann'),
      emails: [{ id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 }],
      phone_numbers: [{ id: 1, number: '555 0100', user_id: 1 }],
      marbles: [
        marbleRow(1, 'Amber Swirl', {
          radius_mm: 12,
          price: '9.20',
          created_at: '2024-05-01 12:00:00.250',
          updated_at: '2024-05-01 12:00:00.250',
          user_id: 1,
        }),
      ],
      genres: [{ id: 1, name: 'Action' }],
      movies: [
        movieRow(1, 'Midnight Harbor', {
          price: '12.00',
          main_genre_id: 1,
          created_at: '2024-03-01 10:00:00.000',
          updated_at: '2024-03-01 10:00:00.000',
        }),
      ],
      genres_movies: movieLinks('genre_id', [1, 1]),
      movies_users: movieLinks('user_id', [1, 1]),
    },
  });

  describe('suffixes on every GET route', () => {
    it.each(GET_ROUTES)(
      'should answer %s in JSON without suffix or header, and the same with .json',
      async (route) => {
        const plain = await t.http().get(route);
        expectNegotiatedJson(plain);
        const suffixed = await t.http().get(`${route}.json`);
        expectNegotiatedJson(suffixed);
        expect(suffixed.text).toBe(plain.text);
        expect(() => JSON.parse(plain.text)).not.toThrow();
      },
    );

    it.each(GET_ROUTES)(
      'should answer %s.xml in XML, as Accept: application/xml does',
      async (route) => {
        const suffixed = await t.http().get(`${route}.xml`);
        expectNegotiatedXml(suffixed);
        const accepted = await t.http().get(route).set('Accept', 'application/xml');
        expectNegotiatedXml(accepted);
        expect(suffixed.text).toBe(accepted.text);
      },
    );

    it('should answer ping and child_ping of both collections with pong messages in both formats', async () => {
      for (const collection of ['emails', 'phone_numbers']) {
        const base = `/api/demo/${collection}`;
        expect((await t.http().get(`${base}/ping`)).text).toBe(PONG_JSON);
        expect((await t.http().get(`${base}/ping.json`)).text).toBe(PONG_JSON);
        expect((await t.http().get(`${base}/ping.xml`)).text).toBe(PONG_XML);
        expect((await t.http().get(`${base}/child_ping`)).text).toBe(CHILD_PONG_JSON);
        expect((await t.http().get(`${base}/child_ping.json`)).text).toBe(CHILD_PONG_JSON);
        expect((await t.http().get(`${base}/child_ping.xml`)).text).toBe(CHILD_PONG_XML);
      }
    });

    it('should render the roots of each kind of response in XML', async () => {
      const show = await t.http().get('/api/demo/emails/1.xml');
      expect(show.text).toBe(xmlDocument(`<hash>${EMAIL_XML}</hash>`));
      const index = await t.http().get('/api/demo/emails.xml');
      expect(index.text).toBe(xmlDocument(onePageXml([EMAIL_XML])));
      const movies = await t.http().get('/api/plain/movies.xml');
      expect(
        movies.text.startsWith(
          xmlDocument('<objects type="array"><object><id type="integer">1</id>').trimEnd(),
        ),
      ).toBe(true);
      expect(movies.text.endsWith('</object></objects>\n')).toBe(true);
    });
  });

  describe('trailing slash', () => {
    it('should serve the index of each collection with a trailing slash', async () => {
      for (const route of COLLECTION_PATHS) {
        const plain = await t.http().get(route);
        const slashed = await t.http().get(`${route}/`);
        expectNegotiatedJson(slashed);
        expect(slashed.body).toStrictEqual(plain.body);
      }
    });

    it('should negotiate XML on an index with a trailing slash', async () => {
      const res = await t.http().get('/api/demo/emails/').set('Accept', 'application/xml');
      expectNegotiatedXml(res);
      expect(res.text).toContain(`<results type="array"><result>${EMAIL_XML}</result></results>`);
    });
  });

  describe('precedence', () => {
    it.each([
      ['the .json suffix', 'format=xml and Accept: application/xml', '1.json?format=xml'],
      ['the .xml suffix', 'format=json and Accept: application/json', '1.xml?format=json'],
      ['format=xml', 'Accept: application/json', '1?format=xml'],
      ['format=json', 'Accept: application/xml', '1?format=json'],
    ])('should let %s beat %s', async (winner, loser, path) => {
      const accept = loser.replace(/^.*Accept: /, '');
      const res = await t.http().get(`/api/demo/emails/${path}`).set('Accept', accept);
      if (winner.includes('xml')) {
        expectExactXml(res, `<hash>${EMAIL_XML}</hash>`);
      } else {
        expectNegotiatedJson(res);
        expect(res.body).toStrictEqual(EMAIL);
      }
    });

    it('should apply format= on index, ping and movies routes too', async () => {
      expectNegotiatedXml(await t.http().get('/api/demo/marbles?format=xml'));
      expect((await t.http().get('/api/demo/phone_numbers/ping?format=xml')).text).toBe(PONG_XML);
      expectNegotiatedXml(await t.http().get('/api/plain/movies?format=xml'));
      expectNegotiatedXml(await t.http().get('/api/plain/movies/1?format=xml'));
      expectNegotiatedJson(
        await t.http().get('/api/plain/movies/1?format=json').set('Accept', 'text/xml'),
      );
    });
  });

  describe('Accept header', () => {
    it.each([
      ['application/xml', 'xml'],
      ['text/xml', 'xml'],
      ['application/json', 'json'],
      ['*/*', 'json'],
      ['text/html;q=0.5, application/json', 'json'],
      ['image/png', 'json'],
      ['application/json;q=0.5, application/xml;q=0.9', 'xml'],
      ['application/xml;q=0.2, application/json', 'json'],
      ['text/xml;q=0.8, */*;q=0.1', 'xml'],
      ['application/xml, */*', 'xml'],
      ['application/json, text/html', 'json'],
      ['text/*', 'xml'],
      ['application/xml;q=0', 'json'],
      ['text/plain, application/json;q=0.1', 'json'],
      ['application/xml; charset=utf-8', 'xml'],
      ['text/xml; charset=utf-8', 'xml'],
      ['Application/XML', 'xml'],
      ['application/json, text/xml;q=0.9', 'json'],
    ])('should answer Accept: %s in %s', async (accept, format) => {
      const res = await t.http().get('/api/demo/emails/ping').set('Accept', accept);
      if (format === 'xml') {
        expectNegotiatedXml(res);
        expect(res.text).toBe(PONG_XML);
      } else {
        expectNegotiatedJson(res);
        expect(res.text).toBe(PONG_JSON);
      }
    });

    it('should answer JSON when no Accept header is sent', async () => {
      const res = await t.http().get('/api/demo/marbles/1').unset('Accept');
      expectNegotiatedJson(res);
      expect(res.body.name).toBe('Amber Swirl');
    });
  });

  describe('unsupported formats', () => {
    itAnswersMessage(
      t,
      [
        '/api/demo/emails.tsv',
        '/api/demo/emails/1.tsv',
        '/api/demo/emails/ping.tsv',
        '/api/demo/marbles.yaml',
        '/api/plain/movies/1.pdf',
        '/api/demo/emails?format=yaml',
        '/api/demo/emails/1?format=tsv',
        '/api/plain/movies?format=yaml',
      ],
      'should answer %s with 406 and a JSON error body',
      406,
    );

    it('should answer 406 in JSON even when Accept asks for XML', async () => {
      const res = await t.request({
        path: '/api/demo/emails?format=yaml',
        accept: 'application/xml',
      });
      expectMessage(res, 406);
    });

    it('should let an unsupported suffix beat a supported format=', async () => {
      const res = await t.http().get('/api/demo/emails.tsv?format=json');
      expectMessage(res, 406);
    });

    it('should not mistake an Accept with no supported type for an explicit format', async () => {
      const res = await t
        .http()
        .get('/api/demo/emails/1')
        .set('Accept', 'text/tab-separated-values');
      expectNegotiatedJson(res);
      expect(res.body).toStrictEqual(EMAIL);
    });
  });

  describe('headers', () => {
    it('should send Content-Type with charset and Vary: Accept on JSON and XML responses', async () => {
      const json = await t.http().get('/api/demo/marbles');
      expect(json.headers['content-type']).toBe(JSON_TYPE);
      expectVaryAccept(json);
      const xml = await t.http().get('/api/demo/marbles').set('Accept', 'text/xml');
      expect(xml.headers['content-type']).toBe(XML_TYPE);
      expectVaryAccept(xml);
    });

    it('should send Vary: Accept on error responses', async () => {
      for (const route of ERROR_ROUTES) {
        const res = await t.http().get(route);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expectVaryAccept(res);
      }
    });
  });
});
