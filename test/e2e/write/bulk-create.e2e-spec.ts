/**
 * Bulk create: all or nothing, at most 1000 items, 422 with errors aligned to the input (null for a
 * valid item) when an item is invalid, 400 for a body of the wrong shape. Every failure is checked
 * to have changed nothing by reading the table back.
 */
import { useApp } from '../support/harness';
import {
  ANN,
  BOB,
  CLEO,
  TWO_EMAILS,
  TWO_PHONES,
  USERS,
  createdMarble,
  dbTime,
  marbleRow,
} from '../support/fixtures';
import {
  UNKNOWN_MARBLE_FIELD,
  expectBulkInvalid,
  expectError,
  expectJson,
  expectStampedWithin,
  expectXml,
  bulkDone,
} from '../support/http';

const BULK_CREATE_SHAPE = 'Bulk create requires an array of objects as input.';

const MARBLES = [
  marbleRow(1, 'Amber', { user_id: 1, price: '9.23' }),
  marbleRow(2, 'Cobalt', { radius_mm: 8, price: null, is_discounted: true }),
];

const RUBY_AND_JADE_XML =
  '<marbles type="array"><marble><name>Ruby</name><radius-mm type="integer">6</radius-mm></marble>' +
  '<marble><name>Jade</name><price type="decimal">2.50</price><user-id type="integer">3</user-id></marble></marbles>';

describe('write: bulk create and update_all', () => {
  const t = useApp({
    seedEach: { users: USERS, marbles: MARBLES, emails: TWO_EMAILS, phone_numbers: TWO_PHONES },
  });

  describe('bulk create', () => {
    it('should create every marble of an array and answer them with 201', async () => {
      const { res, before, after } = await t.send('post', '/api/demo/marbles', [
        { name: 'Ruby', radius_mm: '4', price: '1.10', user_id: 2 },
        { marble: { name: 'Jade' } },
        { name: 'Opal', is_discounted: 1 },
      ]);

      expectJson(res, 201);
      expect(res.headers.location).toBeUndefined();
      const [r, j, o] = (await t.ids('marbles')).slice(MARBLES.length);
      expect(res.body).toEqual(
        bulkDone('create', [
          createdMarble(r, { name: 'Ruby', radius_mm: 4, price: '1.1', user: BOB }),
          createdMarble(j, { name: 'Jade' }),
          createdMarble(o, { name: 'Opal', is_discounted: true }),
        ]),
      );
      for (const record of res.body.records) {
        expectStampedWithin(record.created_at, before, after);
        expectStampedWithin(record.updated_at, before, after);
      }
      const [ruby, jade, opal] = res.body.records;
      const at = (r: { created_at: string; updated_at: string }) => ({
        created_at: dbTime(r.created_at),
        updated_at: dbTime(r.updated_at),
      });
      expect(await t.stored('marbles')).toEqual([
        ...MARBLES,
        { ...marbleRow(r, 'Ruby'), radius_mm: 4, price: '1.1', user_id: 2, ...at(ruby) },
        { ...marbleRow(j, 'Jade'), radius_mm: 1, price: null, ...at(jade) },
        { ...marbleRow(o, 'Opal'), radius_mm: 1, price: null, is_discounted: true, ...at(opal) },
      ]);
    });

    it('should create marbles from an XML array', async () => {
      const res = await t.raw('post', '/api/demo/marbles', 'application/xml', RUBY_AND_JADE_XML);
      expectJson(res, 201);
      const [r, j] = (await t.ids('marbles')).slice(MARBLES.length);
      expect(res.body).toEqual(
        bulkDone('create', [
          createdMarble(r, { name: 'Ruby', radius_mm: 6 }),
          createdMarble(j, { name: 'Jade', price: '2.5', user: CLEO }),
        ]),
      );
      expect(
        (await t.stored('marbles')).map((r) => [r.id, r.name, r.radius_mm, r.price, r.user_id]),
      ).toEqual([
        [1, 'Amber', 10, '9.23', 1],
        [2, 'Cobalt', 8, null, null],
        [r, 'Ruby', 6, null, null],
        [j, 'Jade', 1, '2.5', 3],
      ]);
    });

    it('should answer a bulk create in XML when XML is negotiated', async () => {
      const { res } = await t.send('post', '/api/demo/marbles.xml', [{ name: 'Ruby' }]);
      expectXml(res, 201);
      const ruby = await t.lastId('marbles');
      expect(res.text).toMatch(
        new RegExp(
          '^<\\?xml version="1\\.0" encoding="UTF-8"\\?>\\n<hash><message>Bulk create successful\\.</message>' +
            `<records type="array"><record><id type="integer">${ruby}</id><name>Ruby</name>`,
        ),
      );
      expect(await t.stored('marbles')).toHaveLength(3);
    });

    it('should save nothing and answer 422 with errors aligned to the items when one is invalid', async () => {
      const { res } = await t.send('post', '/api/demo/marbles', [
        { name: 'Ruby' },
        { name: 'Jade', radius_mm: 0, colour: 'green' },
        { name: 'Opal' },
        { name: 'Pearl', user_id: 99 },
      ]);
      expectBulkInvalid(res, [
        null,
        { radius_mm: ['Must be at least 1.'], colour: [UNKNOWN_MARBLE_FIELD] },
        null,
        { user_id: ['No user with id 99.'] },
      ]);
      expect(await t.stored('marbles')).toEqual(MARBLES);
    });

    it('should refuse duplicates within the batch and against stored records, saving nothing', async () => {
      const { res } = await t.send('post', '/api/demo/marbles', [
        { name: 'Ruby' },
        { name: 'Amber' },
        { name: 'Ruby' },
        { name: 'Jade' },
      ]);
      expectBulkInvalid(res, [
        null,
        { name: ['A marble with this name already exists.'] },
        { name: ['Same as item 1 of this request.'] },
        null,
      ]);
      expect(await t.stored('marbles')).toEqual(MARBLES);
    });

    it('should accept 1000 items and refuse 1001 with 400, saving nothing', async () => {
      const tooMany = Array.from({ length: 1001 }, (_, i) => ({ name: `Bulk ${i}` }));
      const { res: refused } = await t.send('post', '/api/demo/marbles', tooMany);
      expectError(refused, 400, { message: `${BULK_CREATE_SHAPE} At most 1000 at a time.` });
      expect(await t.stored('marbles')).toEqual(MARBLES);

      const { res } = await t.send('post', '/api/demo/marbles', tooMany.slice(0, 1000));
      expectJson(res, 201);
      expect(res.body.message).toBe('Bulk create successful.');
      expect(res.body.records).toHaveLength(1000);
      const rows = await t.stored('marbles');
      expect(rows).toHaveLength(1002);
      const last = rows[1001].id as number;
      expect(res.body.records[999]).toEqual(createdMarble(last, { name: 'Bulk 999' }));
      expect(rows[1001]).toMatchObject({ id: last, name: 'Bulk 999' });
    }, 60_000);

    it('should refuse an array of things that are not objects', async () => {
      const { res } = await t.send('post', '/api/demo/marbles', [{ name: 'Ruby' }, 'Jade', 3]);
      expectError(res, 400, {
        message: `${BULK_CREATE_SHAPE} Item 2 is not an object.`,
      });
      expect(await t.stored('marbles')).toEqual(MARBLES);
    });

    it('should create e-mails in bulk and refuse an invalid batch', async () => {
      const { res } = await t.send('post', '/api/demo/emails', [
        { email: 'cleo@example.com', user_id: 3 },
        { email: 'ann.work@example.com', user_id: '1', is_primary: 'false' },
      ]);
      expectJson(res, 201);
      const [c, a] = (await t.ids('emails')).slice(TWO_EMAILS.length);
      expect(res.body).toEqual(
        bulkDone('create', [
          { id: c, email: 'cleo@example.com', is_primary: false, user: CLEO },
          { id: a, email: 'ann.work@example.com', is_primary: false, user: ANN },
        ]),
      );
      const after = [
        ...TWO_EMAILS,
        { id: c, email: 'cleo@example.com', is_primary: false, user_id: 3 },
        { id: a, email: 'ann.work@example.com', is_primary: false, user_id: 1 },
      ];
      expect(await t.stored('emails')).toEqual(after);

      const { res: bad } = await t.send('post', '/api/demo/emails', [
        { email: 'new@example.com', user_id: 1 },
        { email: 'nope', user_id: 1 },
        { email: 'bob@example.com', user_id: 2 },
        { user_id: 1 },
      ]);
      expectBulkInvalid(bad, [
        null,
        { email: ['Must be a valid e-mail address.'] },
        { email: ['An email with this email already exists.'] },
        { email: ['This field is required.'] },
      ]);
      expect(await t.stored('emails')).toEqual(after);
    });

    it('should create phone numbers in bulk exactly as sent and refuse duplicates in the batch', async () => {
      const { res } = await t.send('post', '/api/demo/phone_numbers', [
        { number: ' (555) 0102 ', user_id: 3 },
        { number: '+1.555.0103', user_id: 1 },
      ]);
      expectJson(res, 201);
      const [c, a] = (await t.ids('phone_numbers')).slice(TWO_PHONES.length);
      expect(res.body).toEqual(
        bulkDone('create', [
          { id: c, number: ' (555) 0102 ', user: CLEO },
          { id: a, number: '+1.555.0103', user: ANN },
        ]),
      );
      const after = [
        ...TWO_PHONES,
        { id: c, number: ' (555) 0102 ', user_id: 3 },
        { id: a, number: '+1.555.0103', user_id: 1 },
      ];
      expect(await t.stored('phone_numbers')).toEqual(after);

      const { res: dup } = await t.send('post', '/api/demo/phone_numbers', [
        { number: '555-0199', user_id: 1 },
        { number: '555-0199', user_id: 2 },
      ]);
      expectBulkInvalid(dup, [null, { number: ['Same as item 1 of this request.'] }]);
      expect(await t.stored('phone_numbers')).toEqual(after);
    });
  });
});
