/**
 * Record shapes of the four collections in JSON and XML (CONTRACT §2, §3): field order, omitted
 * references, nulls, canonical decimals, timestamps, nested users and genres, list roots.
 */
import { parseStringPromise } from 'xml2js';
import { startApp, TestApp } from './harness';
import { expectJson, expectXml, insertUsers, setBillingEmail, xmlDocument } from './read-helpers';

const ANN = { id: 1, login: 'ann' };
const BOB = { id: 2, login: 'bob' };
const CLEO = { id: 3, login: 'cleo' };

// ---- emails ------------------------------------------------------------------------------------

const EMAIL_1 = {
  id: 1,
  email: 'ann@example.com',
  is_primary: true,
  user: ANN,
  billing_user: ANN,
};
const EMAIL_2 = {
  id: 2,
  email: 'ann.work@example.org',
  is_primary: false,
  user: ANN,
  billing_user: CLEO,
};
const EMAIL_3 = { id: 3, email: 'bob@example.net', is_primary: true, user: BOB };

const EMAIL_1_XML =
  '<id type="integer">1</id><email>ann@example.com</email><is-primary type="boolean">true</is-primary>' +
  '<user><id type="integer">1</id><login>ann</login></user>' +
  '<billing-user><id type="integer">1</id><login>ann</login></billing-user>';
const EMAIL_2_XML =
  '<id type="integer">2</id><email>ann.work@example.org</email><is-primary type="boolean">false</is-primary>' +
  '<user><id type="integer">1</id><login>ann</login></user>' +
  '<billing-user><id type="integer">3</id><login>cleo</login></billing-user>';
const EMAIL_3_XML =
  '<id type="integer">3</id><email>bob@example.net</email><is-primary type="boolean">true</is-primary>' +
  '<user><id type="integer">2</id><login>bob</login></user>';

// ---- marbles -----------------------------------------------------------------------------------

const MARBLE_1 = {
  id: 1,
  name: 'Amber Swirl',
  radius_mm: 12,
  price: '9.23',
  is_discounted: false,
  created_at: '2024-05-01T12:00:00.123Z',
  updated_at: '2024-05-02T08:30:15.000Z',
  user: ANN,
  description: 'A warm swirl',
  picture: null,
};
const MARBLE_2 = {
  id: 2,
  name: 'Cobalt Aggie',
  radius_mm: 8,
  price: '4.0',
  is_discounted: true,
  created_at: '2024-05-03T00:00:00.000Z',
  updated_at: '2024-05-03T00:00:00.001Z',
  description: '',
  picture: null,
};
const MARBLE_3 = {
  id: 3,
  name: 'Onyx Giant',
  radius_mm: 25,
  price: '4000.0',
  is_discounted: false,
  created_at: '2024-06-15T08:00:00.999Z',
  updated_at: '2024-06-16T09:10:11.010Z',
  user: BOB,
  description: 'Big & <bold> "quoted"',
  picture: null,
};
const MARBLE_4 = {
  id: 4,
  name: 'Glass Pebble',
  radius_mm: 1,
  price: null,
  is_discounted: false,
  created_at: '2024-07-01T00:00:00.000Z',
  updated_at: '2024-07-01T00:00:00.000Z',
  user: CLEO,
  description: 'Clear',
  picture: null,
};
const MARBLE_5 = {
  id: 5,
  name: 'Tiny Bead',
  radius_mm: 2,
  price: '0.5',
  is_discounted: true,
  created_at: '2024-07-02T23:59:59.500Z',
  updated_at: '2024-07-03T00:00:00.000Z',
  description: 'Small',
  picture: null,
};

const MARBLE_1_XML =
  '<id type="integer">1</id><name>Amber Swirl</name><radius-mm type="integer">12</radius-mm>' +
  '<price type="decimal">9.23</price><is-discounted type="boolean">false</is-discounted>' +
  '<created-at type="dateTime">2024-05-01T12:00:00Z</created-at>' +
  '<updated-at type="dateTime">2024-05-02T08:30:15Z</updated-at>' +
  '<user><id type="integer">1</id><login>ann</login></user>' +
  '<description>A warm swirl</description><picture nil="true"/>';
const MARBLE_2_XML =
  '<id type="integer">2</id><name>Cobalt Aggie</name><radius-mm type="integer">8</radius-mm>' +
  '<price type="decimal">4.0</price><is-discounted type="boolean">true</is-discounted>' +
  '<created-at type="dateTime">2024-05-03T00:00:00Z</created-at>' +
  '<updated-at type="dateTime">2024-05-03T00:00:00Z</updated-at>' +
  '<description></description><picture nil="true"/>';
const MARBLE_3_XML =
  '<id type="integer">3</id><name>Onyx Giant</name><radius-mm type="integer">25</radius-mm>' +
  '<price type="decimal">4000.0</price><is-discounted type="boolean">false</is-discounted>' +
  '<created-at type="dateTime">2024-06-15T08:00:00Z</created-at>' +
  '<updated-at type="dateTime">2024-06-16T09:10:11Z</updated-at>' +
  '<user><id type="integer">2</id><login>bob</login></user>' +
  '<description>Big &amp; &lt;bold&gt; "quoted"</description><picture nil="true"/>';
const MARBLE_4_XML =
  '<id type="integer">4</id><name>Glass Pebble</name><radius-mm type="integer">1</radius-mm>' +
  '<price nil="true"/><is-discounted type="boolean">false</is-discounted>' +
  '<created-at type="dateTime">2024-07-01T00:00:00Z</created-at>' +
  '<updated-at type="dateTime">2024-07-01T00:00:00Z</updated-at>' +
  '<user><id type="integer">3</id><login>cleo</login></user>' +
  '<description>Clear</description><picture nil="true"/>';
const MARBLE_5_XML =
  '<id type="integer">5</id><name>Tiny Bead</name><radius-mm type="integer">2</radius-mm>' +
  '<price type="decimal">0.5</price><is-discounted type="boolean">true</is-discounted>' +
  '<created-at type="dateTime">2024-07-02T23:59:59Z</created-at>' +
  '<updated-at type="dateTime">2024-07-03T00:00:00Z</updated-at>' +
  '<description>Small</description><picture nil="true"/>';

// ---- phone numbers -----------------------------------------------------------------------------

const PHONE_1 = { id: 1, number: '+1 (555) 010-0199', user: ANN };
const PHONE_2 = { id: 2, number: '555.010.0200', user: BOB };
const PHONE_3 = { id: 3, number: '020 7946 0018', user: BOB };

const PHONE_1_XML =
  '<id type="integer">1</id><number>+1 (555) 010-0199</number>' +
  '<user><id type="integer">1</id><login>ann</login></user>';
const PHONE_2_XML =
  '<id type="integer">2</id><number>555.010.0200</number>' +
  '<user><id type="integer">2</id><login>bob</login></user>';
const PHONE_3_XML =
  '<id type="integer">3</id><number>020 7946 0018</number>' +
  '<user><id type="integer">2</id><login>bob</login></user>';

// ---- movies ------------------------------------------------------------------------------------

const ACTION = { id: 1, name: 'Action' };
const COMEDY = { id: 2, name: 'Comedy' };
const DRAMA = { id: 3, name: 'Drama' };

const MOVIE_1_BASE = {
  id: 1,
  created_at: '2024-03-01T10:00:00.500Z',
  name: 'Midnight Harbor',
  price: '12.5',
  updated_at: '2024-03-02T11:00:00.000Z',
  main_genre: ACTION,
};
const MOVIE_2_BASE = {
  id: 2,
  created_at: '2024-03-05T00:00:00.000Z',
  name: 'Paper Lanterns',
  price: null,
  updated_at: '2024-03-05T00:00:00.000Z',
};
const MOVIE_3_BASE = {
  id: 3,
  created_at: '2024-03-09T23:59:59.999Z',
  name: 'The Copper Fox',
  price: '7.0',
  updated_at: '2024-03-10T00:00:00.000Z',
  main_genre: DRAMA,
};

const MOVIE_1_XML_HEAD =
  '<id type="integer">1</id><created-at type="dateTime">2024-03-01T10:00:00Z</created-at>' +
  '<name>Midnight Harbor</name><price type="decimal">12.5</price>' +
  '<updated-at type="dateTime">2024-03-02T11:00:00Z</updated-at>' +
  '<main-genre><id type="integer">1</id><name>Action</name></main-genre>';
const MOVIE_1_USERS_XML =
  '<users type="array"><user><id type="integer">1</id><login>ann</login></user>' +
  '<user><id type="integer">3</id><login>cleo</login></user></users>';
const MOVIE_2_XML =
  '<id type="integer">2</id><created-at type="dateTime">2024-03-05T00:00:00Z</created-at>' +
  '<name>Paper Lanterns</name><price nil="true"/>' +
  '<updated-at type="dateTime">2024-03-05T00:00:00Z</updated-at>' +
  '<genres type="array"/><users type="array"/>';
const MOVIE_3_XML_HEAD =
  '<id type="integer">3</id><created-at type="dateTime">2024-03-09T23:59:59Z</created-at>' +
  '<name>The Copper Fox</name><price type="decimal">7.0</price>' +
  '<updated-at type="dateTime">2024-03-10T00:00:00Z</updated-at>' +
  '<main-genre><id type="integer">3</id><name>Drama</name></main-genre>';
const MOVIE_3_USERS_XML =
  '<users type="array"><user><id type="integer">2</id><login>bob</login></user></users>';

describe('read side: record shapes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
    await insertUsers(t, ['ann', 'bob', 'cleo']);
    await t.insert('emails', [
      { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
      { id: 2, email: 'ann.work@example.org', is_primary: false, user_id: 1 },
      { id: 3, email: 'bob@example.net', is_primary: true, user_id: 2 },
    ]);
    await setBillingEmail(t, 1, 1);
    await setBillingEmail(t, 3, 2);
    await t.insert('genres', [
      { id: 1, name: 'Action' },
      { id: 2, name: 'Comedy' },
      { id: 3, name: 'Drama' },
    ]);
    const marble = (
      id: number,
      name: string,
      radius_mm: number,
      price: string | null,
      is_discounted: boolean,
      created_at: string,
      updated_at: string,
      user_id: number | null,
      description: string,
    ) => ({
      id,
      name,
      radius_mm,
      price,
      is_discounted,
      created_at,
      updated_at,
      user_id,
      description,
      picture: null,
    });
    await t.insert('marbles', [
      marble(
        1,
        'Amber Swirl',
        12,
        '9.23',
        false,
        '2024-05-01 12:00:00.123',
        '2024-05-02 08:30:15.000',
        1,
        'A warm swirl',
      ),
      marble(
        2,
        'Cobalt Aggie',
        8,
        '4.00',
        true,
        '2024-05-03 00:00:00.000',
        '2024-05-03 00:00:00.001',
        null,
        '',
      ),
      marble(
        3,
        'Onyx Giant',
        25,
        '4000.00',
        false,
        '2024-06-15 08:00:00.999',
        '2024-06-16 09:10:11.010',
        2,
        'Big & <bold> "quoted"',
      ),
      marble(
        4,
        'Glass Pebble',
        1,
        null,
        false,
        '2024-07-01 00:00:00.000',
        '2024-07-01 00:00:00.000',
        3,
        'Clear',
      ),
      marble(
        5,
        'Tiny Bead',
        2,
        '0.50',
        true,
        '2024-07-02 23:59:59.500',
        '2024-07-03 00:00:00.000',
        null,
        'Small',
      ),
    ]);
    await t.insert('phone_numbers', [
      { id: 1, number: '+1 (555) 010-0199', user_id: 1 },
      { id: 2, number: '555.010.0200', user_id: 2 },
      { id: 3, number: '020 7946 0018', user_id: 2 },
    ]);
    await t.insert('movies', [
      {
        id: 1,
        name: 'Midnight Harbor',
        price: '12.50',
        main_genre_id: 1,
        created_at: '2024-03-01 10:00:00.500',
        updated_at: '2024-03-02 11:00:00.000',
      },
      {
        id: 2,
        name: 'Paper Lanterns',
        price: null,
        main_genre_id: null,
        created_at: '2024-03-05 00:00:00.000',
        updated_at: '2024-03-05 00:00:00.000',
      },
      {
        id: 3,
        name: 'The Copper Fox',
        price: '7.00',
        main_genre_id: 3,
        created_at: '2024-03-09 23:59:59.999',
        updated_at: '2024-03-10 00:00:00.000',
      },
    ]);
    // Inserted out of id order: the API lists genres and users by id.
    await t.insert('genres_movies', [
      { movie_id: 1, genre_id: 2 },
      { movie_id: 1, genre_id: 1 },
      { movie_id: 3, genre_id: 3 },
    ]);
    await t.insert('movies_users', [
      { movie_id: 1, user_id: 3 },
      { movie_id: 1, user_id: 1 },
      { movie_id: 3, user_id: 2 },
    ]);
  });

  afterAll(() => t.close());

  describe('emails', () => {
    it('should list emails in an envelope with fields in contract order and billing_user only when present', async () => {
      const res = await t.http().get('/api/demo/emails');
      expectJson(res);
      const expected = {
        count: 3,
        page: 1,
        page_size: 30,
        total_pages: 1,
        results: [EMAIL_1, EMAIL_2, EMAIL_3],
      };
      expect(res.body).toStrictEqual(expected);
      expect(res.text).toBe(JSON.stringify(expected));
    });

    it('should list emails as XML with dashed names and typed scalars', async () => {
      const res = await t.http().get('/api/demo/emails.xml');
      expectXml(res);
      expect(res.text).toBe(
        xmlDocument(
          '<hash><count type="integer">3</count><page type="integer">1</page>' +
            '<page-size type="integer">30</page-size><total-pages type="integer">1</total-pages>' +
            `<results type="array"><result>${EMAIL_1_XML}</result><result>${EMAIL_2_XML}</result>` +
            `<result>${EMAIL_3_XML}</result></results></hash>`,
        ),
      );
    });

    it('should show an email with a billing_user owned by another user', async () => {
      const res = await t.http().get('/api/demo/emails/2');
      expectJson(res);
      expect(res.body).toStrictEqual(EMAIL_2);
      expect(res.text).toBe(JSON.stringify(EMAIL_2));
    });

    it('should omit billing_user from an email that has none', async () => {
      const res = await t.http().get('/api/demo/emails/3');
      expectJson(res);
      expect(res.body).toStrictEqual(EMAIL_3);
      expect(Object.keys(res.body)).toEqual(['id', 'email', 'is_primary', 'user']);
    });

    it('should show an email as XML under a hash root', async () => {
      const res = await t.http().get('/api/demo/emails/1.xml');
      expectXml(res);
      expect(res.text).toBe(xmlDocument(`<hash>${EMAIL_1_XML}</hash>`));
      const bare = await t.http().get('/api/demo/emails/3.xml');
      expect(bare.text).toBe(xmlDocument(`<hash>${EMAIL_3_XML}</hash>`));
    });
  });

  describe('marbles', () => {
    it('should list marbles with canonical decimals, millisecond timestamps, nulls and omitted users', async () => {
      const res = await t.http().get('/api/demo/marbles');
      expectJson(res);
      const expected = {
        count: 5,
        page: 1,
        page_size: 30,
        total_pages: 1,
        results: [MARBLE_1, MARBLE_2, MARBLE_3, MARBLE_4, MARBLE_5],
      };
      expect(res.body).toStrictEqual(expected);
      expect(res.text).toBe(JSON.stringify(expected));
    });

    it('should list marbles as XML with decimal and dateTime types, nil values and escaped text', async () => {
      const res = await t.http().get('/api/demo/marbles.xml');
      expectXml(res);
      expect(res.text).toBe(
        xmlDocument(
          '<hash><count type="integer">5</count><page type="integer">1</page>' +
            '<page-size type="integer">30</page-size><total-pages type="integer">1</total-pages>' +
            '<results type="array">' +
            [MARBLE_1_XML, MARBLE_2_XML, MARBLE_3_XML, MARBLE_4_XML, MARBLE_5_XML]
              .map((m) => `<result>${m}</result>`)
              .join('') +
            '</results></hash>',
        ),
      );
    });

    it('should show a marble with every field in contract order', async () => {
      const res = await t.http().get('/api/demo/marbles/1');
      expectJson(res);
      expect(res.body).toStrictEqual(MARBLE_1);
      expect(Object.keys(res.body)).toEqual([
        'id',
        'name',
        'radius_mm',
        'price',
        'is_discounted',
        'created_at',
        'updated_at',
        'user',
        'description',
        'picture',
      ]);
    });

    it('should omit user but keep an empty description and a null picture on a marble without owner', async () => {
      const res = await t.http().get('/api/demo/marbles/2');
      expectJson(res);
      expect(res.body).toStrictEqual(MARBLE_2);
      expect(res.text).toBe(JSON.stringify(MARBLE_2));
    });

    it('should send a null price as JSON null and as a nil element in XML', async () => {
      const json = await t.http().get('/api/demo/marbles/4');
      expect(json.body).toStrictEqual(MARBLE_4);
      const xml = await t.http().get('/api/demo/marbles/4.xml');
      expectXml(xml);
      expect(xml.text).toBe(xmlDocument(`<hash>${MARBLE_4_XML}</hash>`));
    });

    it('should show marbles as XML without fractional seconds', async () => {
      for (const [id, inner] of [
        [1, MARBLE_1_XML],
        [2, MARBLE_2_XML],
        [3, MARBLE_3_XML],
        [5, MARBLE_5_XML],
      ] as const) {
        const res = await t.http().get(`/api/demo/marbles/${id}.xml`);
        expectXml(res);
        expect(res.text).toBe(xmlDocument(`<hash>${inner}</hash>`));
      }
    });
  });

  describe('phone_numbers', () => {
    it('should list phone numbers exactly as stored, in an envelope', async () => {
      const res = await t.http().get('/api/demo/phone_numbers');
      expectJson(res);
      const expected = {
        count: 3,
        page: 1,
        page_size: 30,
        total_pages: 1,
        results: [PHONE_1, PHONE_2, PHONE_3],
      };
      expect(res.body).toStrictEqual(expected);
      expect(res.text).toBe(JSON.stringify(expected));
    });

    it('should list phone numbers as XML', async () => {
      const res = await t.http().get('/api/demo/phone_numbers.xml');
      expectXml(res);
      expect(res.text).toBe(
        xmlDocument(
          '<hash><count type="integer">3</count><page type="integer">1</page>' +
            '<page-size type="integer">30</page-size><total-pages type="integer">1</total-pages>' +
            `<results type="array"><result>${PHONE_1_XML}</result><result>${PHONE_2_XML}</result>` +
            `<result>${PHONE_3_XML}</result></results></hash>`,
        ),
      );
    });

    it('should show a phone number in JSON and XML', async () => {
      const json = await t.http().get('/api/demo/phone_numbers/1');
      expectJson(json);
      expect(json.text).toBe(JSON.stringify(PHONE_1));
      const xml = await t.http().get('/api/demo/phone_numbers/1.xml');
      expectXml(xml);
      expect(xml.text).toBe(xmlDocument(`<hash>${PHONE_1_XML}</hash>`));
    });
  });

  describe('movies', () => {
    it('should list movies as a bare array with empty genres and real users ordered by id', async () => {
      const res = await t.http().get('/api/plain/movies');
      expectJson(res);
      const expected = [
        { ...MOVIE_1_BASE, genres: [], users: [ANN, CLEO] },
        { ...MOVIE_2_BASE, genres: [], users: [] },
        { ...MOVIE_3_BASE, genres: [], users: [BOB] },
      ];
      expect(res.body).toStrictEqual(expected);
      expect(res.text).toBe(JSON.stringify(expected));
    });

    it('should list movies as XML under an objects array root', async () => {
      const res = await t.http().get('/api/plain/movies.xml');
      expectXml(res);
      expect(res.text).toBe(
        xmlDocument(
          '<objects type="array">' +
            `<object>${MOVIE_1_XML_HEAD}<genres type="array"/>${MOVIE_1_USERS_XML}</object>` +
            `<object>${MOVIE_2_XML}</object>` +
            `<object>${MOVIE_3_XML_HEAD}<genres type="array"/>${MOVIE_3_USERS_XML}</object>` +
            '</objects>',
        ),
      );
    });

    it('should show a movie with its real genres and users ordered by id', async () => {
      const res = await t.http().get('/api/plain/movies/1');
      expectJson(res);
      const expected = { ...MOVIE_1_BASE, genres: [ACTION, COMEDY], users: [ANN, CLEO] };
      expect(res.body).toStrictEqual(expected);
      expect(res.text).toBe(JSON.stringify(expected));
    });

    it('should show a movie as XML with genre and user items', async () => {
      const res = await t.http().get('/api/plain/movies/1.xml');
      expectXml(res);
      expect(res.text).toBe(
        xmlDocument(
          `<hash>${MOVIE_1_XML_HEAD}<genres type="array">` +
            '<genre><id type="integer">1</id><name>Action</name></genre>' +
            '<genre><id type="integer">2</id><name>Comedy</name></genre></genres>' +
            `${MOVIE_1_USERS_XML}</hash>`,
        ),
      );
    });

    it('should omit main_genre and send empty arrays for a movie without genre or users', async () => {
      const json = await t.http().get('/api/plain/movies/2');
      expectJson(json);
      const expected = { ...MOVIE_2_BASE, genres: [], users: [] };
      expect(json.body).toStrictEqual(expected);
      expect(json.text).toBe(JSON.stringify(expected));
      const xml = await t.http().get('/api/plain/movies/2.xml');
      expectXml(xml);
      expect(xml.text).toBe(xmlDocument(`<hash>${MOVIE_2_XML}</hash>`));
    });

    it('should show a movie with a single genre in JSON and XML', async () => {
      const json = await t.http().get('/api/plain/movies/3');
      expect(json.body).toStrictEqual({ ...MOVIE_3_BASE, genres: [DRAMA], users: [BOB] });
      const xml = await t.http().get('/api/plain/movies/3.xml');
      expect(xml.text).toBe(
        xmlDocument(
          `<hash>${MOVIE_3_XML_HEAD}<genres type="array">` +
            '<genre><id type="integer">3</id><name>Drama</name></genre></genres>' +
            `${MOVIE_3_USERS_XML}</hash>`,
        ),
      );
    });
  });

  // Last, so that the listings above keep their five marbles.
  describe('text that could break a document', () => {
    const HOSTILE = 'a]]> <!-- b --> <![CDATA[ c & d\u0007 \r\n "e" \'f\' \u{1F600}';

    beforeAll(async () => {
      await t.insert('marbles', [
        {
          id: 6,
          name: '</name><injected/>',
          radius_mm: 3,
          price: '1.00',
          is_discounted: false,
          created_at: '2024-08-01 00:00:00.000',
          updated_at: '2024-08-01 00:00:00.000',
          user_id: null,
          description: HOSTILE,
          picture: null,
        },
      ]);
    });

    it('should send stored markup and control characters as text that keeps the XML well-formed', async () => {
      const res = await t.http().get('/api/demo/marbles/6.xml');
      expectXml(res);
      expect(res.text).toContain('<name>&lt;/name&gt;&lt;injected/&gt;</name>');
      const parsed = await parseStringPromise(res.text, { explicitArray: false });
      expect(Object.keys(parsed)).toEqual(['hash']);
      expect(parsed.hash.name).toBe('</name><injected/>');
      expect(parsed.hash.description).toContain('a]]> <!-- b --> <![CDATA[ c & d');
      expect(parsed.hash.description).toContain('"e" \'f\' \u{1F600}');
    });

    it('should send the same text unchanged in JSON', async () => {
      const res = await t.http().get('/api/demo/marbles/6');
      expectJson(res);
      expect(res.body.name).toBe('</name><injected/>');
      expect(res.body.description).toBe(HOSTILE);
    });
  });
});
