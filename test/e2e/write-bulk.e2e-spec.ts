/**
 * Bulk create and update_all (CONTRACT §4): all or nothing, at most 1000 items, 422 with errors
 * aligned to the input (null for a valid item) when an item is invalid, 400 for a body of the
 * wrong shape or an id that does not exist. Every failure is checked to have changed nothing by
 * reading the table back.
 */
import { startApp, TestApp } from './harness';
import {
  ANN,
  BOB,
  BULK_INVALID,
  CLEO,
  T1_ISO,
  T2_ISO,
  UNKNOWN_MARBLE_FIELD,
  dbTime,
  expectError,
  expectJson,
  expectStampedWithin,
  expectXml,
  freshTables,
  marbleRow,
  seedUsers,
  stored,
} from './write-helpers';

const BULK_UPDATE_SHAPE = 'Bulk update requires an array of objects, each with the id of a record.';
const BULK_CREATE_SHAPE = 'Bulk create requires an array of objects as input.';

const AMBER = marbleRow(1, 'Amber', { user_id: 1, price: '9.23' });
const COBALT = marbleRow(2, 'Cobalt', { radius_mm: 8, price: null, is_discounted: true });
const MARBLES = [AMBER, COBALT];

const EMAILS = [
  { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
  { id: 2, email: 'bob@example.com', is_primary: false, user_id: 2 },
];
const PHONES = [
  { id: 1, number: '555-0100', user_id: 1 },
  { id: 2, number: '555-0101', user_id: 2 },
];

/** A marble record as created by bulk create with only some fields sent. */
function createdMarble(id: number, fields: Record<string, unknown>) {
  return {
    id,
    name: fields.name,
    radius_mm: 1,
    price: null,
    is_discounted: false,
    created_at: expect.any(String),
    updated_at: expect.any(String),
    description: '',
    picture: null,
    ...fields,
  };
}

describe('write: bulk create and update_all', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  beforeEach(async () => {
    await freshTables(t);
    await seedUsers(t);
    await t.insert('marbles', MARBLES);
    await t.insert('emails', EMAILS);
    await t.insert('phone_numbers', PHONES);
  });

  describe('bulk create', () => {
    it('should create every marble of an array and answer them with 201', async () => {
      const before = Date.now();
      const res = await t
        .http()
        .post('/api/demo/marbles')
        .send([
          { name: 'Ruby', radius_mm: '4', price: '1.10', user_id: 2 },
          { marble: { name: 'Jade' } },
          { name: 'Opal', is_discounted: 1 },
        ]);
      const after = Date.now();

      expectJson(res, 201);
      expect(res.headers.location).toBeUndefined();
      expect(res.body).toEqual({
        message: 'Bulk create successful.',
        records: [
          createdMarble(3, { name: 'Ruby', radius_mm: 4, price: '1.1', user: BOB }),
          createdMarble(4, { name: 'Jade' }),
          createdMarble(5, { name: 'Opal', is_discounted: true }),
        ],
      });
      for (const record of res.body.records) {
        expectStampedWithin(record.created_at, before, after);
        expectStampedWithin(record.updated_at, before, after);
      }
      const [ruby, jade, opal] = res.body.records;
      const at = (r: { created_at: string; updated_at: string }) => ({
        created_at: dbTime(r.created_at),
        updated_at: dbTime(r.updated_at),
      });
      expect(await stored(t, 'marbles')).toEqual([
        ...MARBLES,
        { ...marbleRow(3, 'Ruby'), radius_mm: 4, price: '1.1', user_id: 2, ...at(ruby) },
        { ...marbleRow(4, 'Jade'), radius_mm: 1, price: null, ...at(jade) },
        { ...marbleRow(5, 'Opal'), radius_mm: 1, price: null, is_discounted: true, ...at(opal) },
      ]);
    });

    it('should create marbles from an XML array', async () => {
      const res = await t
        .http()
        .post('/api/demo/marbles')
        .set('Content-Type', 'application/xml')
        .send(
          '<marbles type="array"><marble><name>Ruby</name><radius-mm type="integer">6</radius-mm></marble>' +
            '<marble><name>Jade</name><price type="decimal">2.50</price><user-id type="integer">3</user-id></marble></marbles>',
        );
      expectJson(res, 201);
      expect(res.body).toEqual({
        message: 'Bulk create successful.',
        records: [
          createdMarble(3, { name: 'Ruby', radius_mm: 6 }),
          createdMarble(4, { name: 'Jade', price: '2.5', user: CLEO }),
        ],
      });
      expect(
        (await stored(t, 'marbles')).map((r) => [r.id, r.name, r.radius_mm, r.price, r.user_id]),
      ).toEqual([
        [1, 'Amber', 10, '9.23', 1],
        [2, 'Cobalt', 8, null, null],
        [3, 'Ruby', 6, null, null],
        [4, 'Jade', 1, '2.5', 3],
      ]);
    });

    it('should answer a bulk create in XML when XML is negotiated', async () => {
      const res = await t
        .http()
        .post('/api/demo/marbles.xml')
        .send([{ name: 'Ruby' }]);
      expectXml(res, 201);
      expect(res.text).toMatch(
        /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<hash><message>Bulk create successful\.<\/message><records type="array"><record><id type="integer">3<\/id><name>Ruby<\/name>/,
      );
      expect(await stored(t, 'marbles')).toHaveLength(3);
    });

    it('should save nothing and answer 422 with errors aligned to the items when one is invalid', async () => {
      const res = await t
        .http()
        .post('/api/demo/marbles')
        .send([
          { name: 'Ruby' },
          { name: 'Jade', radius_mm: 0, colour: 'green' },
          { name: 'Opal' },
          { name: 'Pearl', user_id: 99 },
        ]);
      expectError(res, 422, {
        message: BULK_INVALID,
        errors: [
          null,
          { radius_mm: ['Must be at least 1.'], colour: [UNKNOWN_MARBLE_FIELD] },
          null,
          { user_id: ['No user with id 99.'] },
        ],
      });
      expect(await stored(t, 'marbles')).toEqual(MARBLES);
    });

    it('should refuse duplicates within the batch and against stored records, saving nothing', async () => {
      const res = await t
        .http()
        .post('/api/demo/marbles')
        .send([{ name: 'Ruby' }, { name: 'Amber' }, { name: 'Ruby' }, { name: 'Jade' }]);
      expectError(res, 422, {
        message: BULK_INVALID,
        errors: [
          null,
          { name: ['A marble with this name already exists.'] },
          { name: ['Same as item 1 of this request.'] },
          null,
        ],
      });
      expect(await stored(t, 'marbles')).toEqual(MARBLES);
    });

    it('should accept 1000 items and refuse 1001 with 400, saving nothing', async () => {
      const tooMany = Array.from({ length: 1001 }, (_, i) => ({ name: `Bulk ${i}` }));
      const refused = await t.http().post('/api/demo/marbles').send(tooMany);
      expectError(refused, 400, { message: `${BULK_CREATE_SHAPE} At most 1000 at a time.` });
      expect(await stored(t, 'marbles')).toEqual(MARBLES);

      const res = await t.http().post('/api/demo/marbles').send(tooMany.slice(0, 1000));
      expectJson(res, 201);
      expect(res.body.message).toBe('Bulk create successful.');
      expect(res.body.records).toHaveLength(1000);
      expect(res.body.records[999]).toEqual(createdMarble(1002, { name: 'Bulk 999' }));
      const rows = await stored(t, 'marbles');
      expect(rows).toHaveLength(1002);
      expect(rows[1001]).toMatchObject({ id: 1002, name: 'Bulk 999' });
    }, 60_000);

    it('should refuse an array of things that are not objects', async () => {
      const res = await t
        .http()
        .post('/api/demo/marbles')
        .send([{ name: 'Ruby' }, 'Jade', 3]);
      expectError(res, 400, { message: BULK_CREATE_SHAPE });
      expect(await stored(t, 'marbles')).toEqual(MARBLES);
    });

    it('should create e-mails in bulk and refuse an invalid batch', async () => {
      const res = await t
        .http()
        .post('/api/demo/emails')
        .send([
          { email: 'cleo@example.com', user_id: 3 },
          { email: 'ann.work@example.com', user_id: '1', is_primary: 'false' },
        ]);
      expectJson(res, 201);
      expect(res.body).toEqual({
        message: 'Bulk create successful.',
        records: [
          { id: 3, email: 'cleo@example.com', is_primary: false, user: CLEO },
          { id: 4, email: 'ann.work@example.com', is_primary: false, user: ANN },
        ],
      });
      const after = [
        ...EMAILS,
        { id: 3, email: 'cleo@example.com', is_primary: false, user_id: 3 },
        { id: 4, email: 'ann.work@example.com', is_primary: false, user_id: 1 },
      ];
      expect(await stored(t, 'emails')).toEqual(after);

      const bad = await t
        .http()
        .post('/api/demo/emails')
        .send([
          { email: 'new@example.com', user_id: 1 },
          { email: 'nope', user_id: 1 },
          { email: 'bob@example.com', user_id: 2 },
          { user_id: 1 },
        ]);
      expectError(bad, 422, {
        message: BULK_INVALID,
        errors: [
          null,
          { email: ['Must be a valid e-mail address.'] },
          { email: ['An email with this email already exists.'] },
          { email: ['This field is required.'] },
        ],
      });
      expect(await stored(t, 'emails')).toEqual(after);
    });

    it('should create phone numbers in bulk exactly as sent and refuse duplicates in the batch', async () => {
      const res = await t
        .http()
        .post('/api/demo/phone_numbers')
        .send([
          { number: ' (555) 0102 ', user_id: 3 },
          { number: '+1.555.0103', user_id: 1 },
        ]);
      expectJson(res, 201);
      expect(res.body).toEqual({
        message: 'Bulk create successful.',
        records: [
          { id: 3, number: ' (555) 0102 ', user: CLEO },
          { id: 4, number: '+1.555.0103', user: ANN },
        ],
      });
      const after = [
        ...PHONES,
        { id: 3, number: ' (555) 0102 ', user_id: 3 },
        { id: 4, number: '+1.555.0103', user_id: 1 },
      ];
      expect(await stored(t, 'phone_numbers')).toEqual(after);

      const dup = await t
        .http()
        .post('/api/demo/phone_numbers')
        .send([
          { number: '555-0199', user_id: 1 },
          { number: '555-0199', user_id: 2 },
        ]);
      expectError(dup, 422, {
        message: BULK_INVALID,
        errors: [null, { number: ['Same as item 1 of this request.'] }],
      });
      expect(await stored(t, 'phone_numbers')).toEqual(after);
    });
  });

  describe('update_all', () => {
    for (const method of ['put', 'patch'] as const) {
      const VERB = method.toUpperCase();

      it(`should update every listed marble via ${VERB} and answer them with 200`, async () => {
        const before = Date.now();
        const res = await t
          .http()
          [method]('/api/demo/marbles')
          .send([
            { id: 2, name: 'Cobalt Blue', price: '3' },
            { id: '1', is_discounted: 'true' },
          ]);
        const after = Date.now();

        expectJson(res, 200);
        expect(res.body).toEqual({
          message: 'Bulk update successful.',
          records: [
            {
              id: 2,
              name: 'Cobalt Blue',
              radius_mm: 8,
              price: '3.0',
              is_discounted: true,
              created_at: T1_ISO,
              updated_at: expect.any(String),
              description: '',
              picture: null,
            },
            {
              id: 1,
              name: 'Amber',
              radius_mm: 10,
              price: '9.23',
              is_discounted: true,
              created_at: T1_ISO,
              updated_at: expect.any(String),
              user: ANN,
              description: '',
              picture: null,
            },
          ],
        });
        const [cobalt, amber] = res.body.records;
        expectStampedWithin(cobalt.updated_at, before, after);
        expectStampedWithin(amber.updated_at, before, after);
        expect(await stored(t, 'marbles')).toEqual([
          { ...AMBER, is_discounted: true, updated_at: dbTime(amber.updated_at) },
          { ...COBALT, name: 'Cobalt Blue', price: '3.0', updated_at: dbTime(cobalt.updated_at) },
        ]);
      });

      it(`should refuse a body that is not an array via ${VERB}, changing nothing`, async () => {
        for (const body of [{ id: 1, name: 'Solo' }, 'text', 1]) {
          const res = await t
            .http()
            [method]('/api/demo/marbles')
            .set('Content-Type', 'application/json')
            .send(JSON.stringify(body));
          expectError(res, 400, { message: BULK_UPDATE_SHAPE });
        }
        expect(await stored(t, 'marbles')).toEqual(MARBLES);
      });

      it(`should refuse items without a valid id via ${VERB}, changing nothing`, async () => {
        for (const body of [
          [{ id: 1, price: '1' }, { name: 'No id' }],
          [{ id: 'one', price: '1' }],
          [{ id: 1 }, { id: 1 }],
        ]) {
          const res = await t.http()[method]('/api/demo/marbles').send(body);
          expectError(res, 400, {
            message: `${BULK_UPDATE_SHAPE} Ids must be positive integers, each once.`,
          });
        }
        expect(await stored(t, 'marbles')).toEqual(MARBLES);
      });

      it(`should refuse an id that does not exist via ${VERB}, changing nothing`, async () => {
        const res = await t
          .http()
          [method]('/api/demo/marbles')
          .send([
            { id: 1, price: '1' },
            { id: 99, price: '2' },
          ]);
        expectError(res, 400, {
          message: 'No marbles with ids 99; nothing was changed.',
          errors: { id: ['Marble 99 not found.'] },
        });
        expect(await stored(t, 'marbles')).toEqual(MARBLES);
      });

      it(`should answer 422 aligned to the items for an invalid item via ${VERB}, changing nothing`, async () => {
        const res = await t
          .http()
          [method]('/api/demo/marbles')
          .send([
            { id: 1, price: '7.77' },
            { id: 2, radius_mm: 0, name: 'Amber' },
          ]);
        expectError(res, 422, {
          message: BULK_INVALID,
          errors: [
            null,
            {
              radius_mm: ['Must be at least 1.'],
              name: ['A marble with this name already exists.'],
            },
          ],
        });
        expect(await stored(t, 'marbles')).toEqual(MARBLES);
      });
    }

    it('should refuse two items that take the same new name', async () => {
      const res = await t
        .http()
        .patch('/api/demo/marbles')
        .send([
          { id: 1, name: 'Twin' },
          { id: 2, name: 'Twin' },
        ]);
      expectError(res, 422, {
        message: BULK_INVALID,
        errors: [null, { name: ['Same as item 1 of this request.'] }],
      });
      expect(await stored(t, 'marbles')).toEqual(MARBLES);
    });

    it('should update marbles from an XML array', async () => {
      const res = await t
        .http()
        .put('/api/demo/marbles')
        .set('Content-Type', 'application/xml')
        .send(
          '<marbles type="array"><marble><id type="integer">1</id><price nil="true"/></marble>' +
            '<marble><id type="integer">2</id><description>deep blue</description></marble></marbles>',
        );
      expectJson(res, 200);
      expect(res.body.message).toBe('Bulk update successful.');
      expect(
        res.body.records.map((r: { id: number; price: unknown; description: string }) => [
          r.id,
          r.price,
          r.description,
        ]),
      ).toEqual([
        [1, null, ''],
        [2, null, 'deep blue'],
      ]);
      const rows = await stored(t, 'marbles');
      expect(rows.map((r) => [r.id, r.price, r.description])).toEqual([
        [1, null, ''],
        [2, null, 'deep blue'],
      ]);
      expect(
        rows.every((r) => r.updated_at !== dbTime(T2_ISO) && r.created_at === AMBER.created_at),
      ).toBe(true);
    });

    it('should update e-mails and phone numbers in bulk', async () => {
      const emails = await t
        .http()
        .patch('/api/demo/emails')
        .send([{ id: 2, email: 'robert@example.com', user_id: 3 }]);
      expectJson(emails, 200);
      expect(emails.body).toEqual({
        message: 'Bulk update successful.',
        records: [{ id: 2, email: 'robert@example.com', is_primary: false, user: CLEO }],
      });
      expect(await stored(t, 'emails')).toEqual([
        EMAILS[0],
        { id: 2, email: 'robert@example.com', is_primary: false, user_id: 3 },
      ]);

      const phones = await t
        .http()
        .put('/api/demo/phone_numbers')
        .send([
          { id: 1, number: ' 555 0100 ' },
          { id: 2, user_id: 1 },
        ]);
      expectJson(phones, 200);
      expect(phones.body).toEqual({
        message: 'Bulk update successful.',
        records: [
          { id: 1, number: ' 555 0100 ', user: ANN },
          { id: 2, number: '555-0101', user: ANN },
        ],
      });
      expect(await stored(t, 'phone_numbers')).toEqual([
        { id: 1, number: ' 555 0100 ', user_id: 1 },
        { id: 2, number: '555-0101', user_id: 1 },
      ]);
    });

    it('should change no phone number when one item is invalid', async () => {
      const res = await t
        .http()
        .patch('/api/demo/phone_numbers')
        .send([
          { id: 1, number: '999' },
          { id: 2, number: ' ' },
        ]);
      expectError(res, 422, {
        message: BULK_INVALID,
        errors: [null, { number: ['May not be blank.'] }],
      });
      expect(await stored(t, 'phone_numbers')).toEqual(PHONES);
    });

    it('should answer 405 to PUT and PATCH on the movies collection', async () => {
      for (const method of ['put', 'patch'] as const) {
        const res = await t
          .http()
          [method]('/api/plain/movies')
          .send([{ id: 1, name: 'x' }]);
        expectError(res, 405, {
          message: `Method ${method.toUpperCase()} is not allowed here; allowed: GET, HEAD, POST, OPTIONS.`,
        });
        expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      }
    });
  });
});
