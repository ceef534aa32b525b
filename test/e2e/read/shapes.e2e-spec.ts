/**
 * Record shapes of the e-mails, marbles and phone numbers in JSON and XML: field order, omitted
 * references, nulls, canonical decimals, timestamps, nested users, list roots, and stored text that
 * could break a document. The movies are in read-shapes-movies.
 */
import { parseStringPromise } from 'xml2js';
import { useApp } from '../support/harness';
import {
  ANN,
  BOB,
  CLEO,
  MARBLE_FIELDS,
  marbleRow,
  onePage,
  onePageXml,
  setBillingEmail,
  userRows,
} from '../support/fixtures';
import {
  expectExactJson,
  expectNegotiatedJson,
  expectNegotiatedXml,
  xmlDocument,
  expectExactXml,
} from '../support/http';

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

describe('read side: record shapes', () => {
  const t = useApp({
    seed: async () => {
      await t.insertAll({
        users: userRows('ann', 'bob', 'cleo'),
        emails: [
          { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
          { id: 2, email: 'ann.work@example.org', is_primary: false, user_id: 1 },
          { id: 3, email: 'bob@example.net', is_primary: true, user_id: 2 },
        ],
        marbles: [
          marbleRow(1, 'Amber Swirl', {
            radius_mm: 12,
            price: '9.23',
            created_at: '2024-05-01 12:00:00.123',
            updated_at: '2024-05-02 08:30:15.000',
            user_id: 1,
            description: 'A warm swirl',
          }),
          marbleRow(2, 'Cobalt Aggie', {
            radius_mm: 8,
            price: '4.00',
            is_discounted: true,
            created_at: '2024-05-03 00:00:00.000',
            updated_at: '2024-05-03 00:00:00.001',
          }),
          marbleRow(3, 'Onyx Giant', {
            radius_mm: 25,
            price: '4000.00',
            created_at: '2024-06-15 08:00:00.999',
            updated_at: '2024-06-16 09:10:11.010',
            user_id: 2,
            description: 'Big & <bold> "quoted"',
          }),
          marbleRow(4, 'Glass Pebble', {
            radius_mm: 1,
            price: null,
            created_at: '2024-07-01 00:00:00.000',
            updated_at: '2024-07-01 00:00:00.000',
            user_id: 3,
            description: 'Clear',
          }),
          marbleRow(5, 'Tiny Bead', {
            radius_mm: 2,
            price: '0.50',
            is_discounted: true,
            created_at: '2024-07-02 23:59:59.500',
            updated_at: '2024-07-03 00:00:00.000',
            description: 'Small',
          }),
        ],
        phone_numbers: [
          { id: 1, number: '+1 (555) 010-0199', user_id: 1 },
          { id: 2, number: '555.010.0200', user_id: 2 },
          { id: 3, number: '020 7946 0018', user_id: 2 },
        ],
      });
      await setBillingEmail(t, 1, 1);
      await setBillingEmail(t, 3, 2);
    },
  });

  describe('emails', () => {
    it('should list emails in an envelope with fields in contract order and billing_user only when present', async () => {
      expectExactJson(await t.http().get('/api/demo/emails'), onePage([EMAIL_1, EMAIL_2, EMAIL_3]));
    });

    it('should list emails as XML with dashed names and typed scalars', async () => {
      const res = await t.http().get('/api/demo/emails.xml');
      expectExactXml(res, onePageXml([EMAIL_1_XML, EMAIL_2_XML, EMAIL_3_XML]));
    });

    it('should show an email with a billing_user owned by another user', async () => {
      const res = await t.http().get('/api/demo/emails/2');
      expectExactJson(res, EMAIL_2);
    });

    it('should omit billing_user from an email that has none', async () => {
      const res = await t.http().get('/api/demo/emails/3');
      expectNegotiatedJson(res);
      expect(res.body).toStrictEqual(EMAIL_3);
      expect(Object.keys(res.body)).toEqual(['id', 'email', 'is_primary', 'user']);
    });

    it('should show an email as XML under a hash root', async () => {
      const res = await t.http().get('/api/demo/emails/1.xml');
      expectExactXml(res, `<hash>${EMAIL_1_XML}</hash>`);
      const bare = await t.http().get('/api/demo/emails/3.xml');
      expect(bare.text).toBe(xmlDocument(`<hash>${EMAIL_3_XML}</hash>`));
    });
  });

  describe('marbles', () => {
    it('should list marbles with canonical decimals, millisecond timestamps, nulls and omitted users', async () => {
      expectExactJson(
        await t.http().get('/api/demo/marbles'),
        onePage([MARBLE_1, MARBLE_2, MARBLE_3, MARBLE_4, MARBLE_5]),
      );
    });

    it('should list marbles as XML with decimal and dateTime types, nil values and escaped text', async () => {
      const res = await t.http().get('/api/demo/marbles.xml');
      expectExactXml(
        res,
        onePageXml([MARBLE_1_XML, MARBLE_2_XML, MARBLE_3_XML, MARBLE_4_XML, MARBLE_5_XML]),
      );
    });

    it('should show a marble with every field in contract order', async () => {
      const res = await t.http().get('/api/demo/marbles/1');
      expectNegotiatedJson(res);
      expect(res.body).toStrictEqual(MARBLE_1);
      expect(Object.keys(res.body)).toEqual(MARBLE_FIELDS);
    });

    it('should omit user but keep an empty description and a null picture on a marble without owner', async () => {
      const res = await t.http().get('/api/demo/marbles/2');
      expectExactJson(res, MARBLE_2);
    });

    it('should send a null price as JSON null and as a nil element in XML', async () => {
      const json = await t.http().get('/api/demo/marbles/4');
      expect(json.body).toStrictEqual(MARBLE_4);
      const xml = await t.http().get('/api/demo/marbles/4.xml');
      expectExactXml(xml, `<hash>${MARBLE_4_XML}</hash>`);
    });

    it('should show marbles as XML without fractional seconds', async () => {
      for (const [id, inner] of [
        [1, MARBLE_1_XML],
        [2, MARBLE_2_XML],
        [3, MARBLE_3_XML],
        [5, MARBLE_5_XML],
      ] as const) {
        const res = await t.http().get(`/api/demo/marbles/${id}.xml`);
        expectExactXml(res, `<hash>${inner}</hash>`);
      }
    });
  });

  describe('phone_numbers', () => {
    it('should list phone numbers exactly as stored, in an envelope', async () => {
      expectExactJson(
        await t.http().get('/api/demo/phone_numbers'),
        onePage([PHONE_1, PHONE_2, PHONE_3]),
      );
    });

    it('should list phone numbers as XML', async () => {
      const res = await t.http().get('/api/demo/phone_numbers.xml');
      expectExactXml(res, onePageXml([PHONE_1_XML, PHONE_2_XML, PHONE_3_XML]));
    });

    it('should show a phone number in JSON and XML', async () => {
      const json = await t.http().get('/api/demo/phone_numbers/1');
      expectNegotiatedJson(json);
      expect(json.text).toBe(JSON.stringify(PHONE_1));
      const xml = await t.http().get('/api/demo/phone_numbers/1.xml');
      expectExactXml(xml, `<hash>${PHONE_1_XML}</hash>`);
    });
  });

  // Last, so that the listings above keep their five marbles.
  describe('text that could break a document', () => {
    const HOSTILE = 'a]]> <!-- b --> <![CDATA[ c & d\u0007 \r\n "e" \'f\' \u{1F600}';

    beforeAll(async () => {
      await t.insert('marbles', [
        marbleRow(6, '</name><injected/>', {
          radius_mm: 3,
          price: '1.00',
          created_at: '2024-08-01 00:00:00.000',
          updated_at: '2024-08-01 00:00:00.000',
          description: HOSTILE,
        }),
      ]);
    });

    it('should send stored markup and control characters as text that keeps the XML well-formed', async () => {
      const res = await t.http().get('/api/demo/marbles/6.xml');
      expectNegotiatedXml(res);
      expect(res.text).toContain('<name>&lt;/name&gt;&lt;injected/&gt;</name>');
      const parsed = await parseStringPromise(res.text, { explicitArray: false });
      expect(Object.keys(parsed)).toEqual(['hash']);
      expect(parsed.hash.name).toBe('</name><injected/>');
      expect(parsed.hash.description).toContain('a]]> <!-- b --> <![CDATA[ c & d');
      expect(parsed.hash.description).toContain('"e" \'f\' \u{1F600}');
    });

    it('should send the same text unchanged in JSON', async () => {
      const res = await t.http().get('/api/demo/marbles/6');
      expectNegotiatedJson(res);
      expect(res.body.name).toBe('</name><injected/>');
      expect(res.body.description).toBe(HOSTILE);
    });
  });
});
