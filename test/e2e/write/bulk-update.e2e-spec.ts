/**
 * update_all, the bulk update: all or nothing, 422 with errors aligned to the input (null for a
 * valid item) when an item is invalid, 400 for a body of the wrong shape or an id that does not
 * exist, and 405 where a collection has no bulk update. Every failure is checked to have changed
 * nothing by reading the table back.
 */
import { useApp } from '../support/harness';
import {
  ANN,
  CLEO,
  T1_ISO,
  T2_ISO,
  TWO_EMAILS,
  TWO_PHONES,
  USERS,
  dbTime,
  marbleRow,
} from '../support/fixtures';
import {
  expectBulkInvalid,
  expectError,
  expectJson,
  expectStampedWithin,
  bulkDone,
  pick,
} from '../support/http';

const BULK_UPDATE_SHAPE = 'Bulk update requires an array of objects, each with the id of a record.';

/** Two updates in XML: marble 1 loses its price, marble 2 gets a description. */
const NULL_PRICE_AND_BLUE_XML =
  '<marbles type="array"><marble><id type="integer">1</id><price nil="true"/></marble>' +
  '<marble><id type="integer">2</id><description>deep blue</description></marble></marbles>';

const AMBER = marbleRow(1, 'Amber', { user_id: 1, price: '9.23' });
const COBALT = marbleRow(2, 'Cobalt', { radius_mm: 8, price: null, is_discounted: true });
const MARBLES = [AMBER, COBALT];

describe('write: bulk create and update_all', () => {
  const t = useApp({
    seedEach: { users: USERS, marbles: MARBLES, emails: TWO_EMAILS, phone_numbers: TWO_PHONES },
  });

  describe('update_all', () => {
    for (const method of ['put', 'patch'] as const) {
      const VERB = method.toUpperCase();

      it(`should update every listed marble via ${VERB} and answer them with 200`, async () => {
        const { res, before, after } = await t.send(method, '/api/demo/marbles', [
          { id: 2, name: 'Cobalt Blue', price: '3' },
          { id: '1', is_discounted: 'true' },
        ]);

        expectJson(res, 200);
        expect(res.body).toEqual(
          bulkDone('update', [
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
          ]),
        );
        const [cobalt, amber] = res.body.records;
        expectStampedWithin(cobalt.updated_at, before, after);
        expectStampedWithin(amber.updated_at, before, after);
        expect(await t.stored('marbles')).toEqual([
          { ...AMBER, is_discounted: true, updated_at: dbTime(amber.updated_at) },
          { ...COBALT, name: 'Cobalt Blue', price: '3.0', updated_at: dbTime(cobalt.updated_at) },
        ]);
      });

      it(`should refuse a body that is not an array via ${VERB}, changing nothing`, async () => {
        for (const body of [{ id: 1, name: 'Solo' }, 'text', 1]) {
          const res = await t.raw(
            method,
            '/api/demo/marbles',
            'application/json',
            JSON.stringify(body),
          );
          expectError(res, 400, { message: BULK_UPDATE_SHAPE });
        }
        expect(await t.stored('marbles')).toEqual(MARBLES);
      });

      it(`should refuse items without a valid id via ${VERB}, changing nothing`, async () => {
        for (const [body, problems] of [
          [[{ id: 1, price: '1' }, { name: 'No id' }], 'item 2 has no id'],
          [[{ id: 'one', price: '1' }], 'item 1 has id "one"'],
          [[{ id: 1 }, { id: 1 }], 'items 1 and 2 have the same id 1'],
          [
            [{ id: 0 }, { id: 2 }, {}, { id: 2 }],
            'item 1 has id 0; item 3 has no id; ' + 'items 2 and 4 have the same id 2',
          ],
        ] as const) {
          const { res } = await t.send(method, '/api/demo/marbles', body);
          expectError(res, 400, {
            message: `${BULK_UPDATE_SHAPE} Ids must be positive integers, each once: ${problems}.`,
          });
        }
        const stray = await t.send(method, '/api/demo/marbles', [{ id: 1 }, 5]);
        expectError(stray.res, 400, {
          message: `${BULK_UPDATE_SHAPE} Item 2 is not an object.`,
        });
        expect(await t.stored('marbles')).toEqual(MARBLES);
      });

      it(`should refuse an id that does not exist via ${VERB}, changing nothing`, async () => {
        const { res } = await t.send(method, '/api/demo/marbles', [
          { id: 1, price: '1' },
          { id: 99, price: '2' },
        ]);
        expectError(res, 400, {
          message: 'No marbles with ids 99; nothing was changed.',
          errors: { id: ['Marble 99 not found.'] },
        });
        expect(await t.stored('marbles')).toEqual(MARBLES);
      });

      it(`should answer 422 aligned to the items for an invalid item via ${VERB}, changing nothing`, async () => {
        const { res } = await t.send(method, '/api/demo/marbles', [
          { id: 1, price: '7.77' },
          { id: 2, radius_mm: 0, name: 'Amber' },
        ]);
        expectBulkInvalid(res, [
          null,
          {
            radius_mm: ['Must be at least 1.'],
            name: ['A marble with this name already exists.'],
          },
        ]);
        expect(await t.stored('marbles')).toEqual(MARBLES);
      });
    }

    it('should refuse two items that take the same new name', async () => {
      const twins = [
        { id: 1, name: 'Twin' },
        { id: 2, name: 'Twin' },
      ];
      const { res } = await t.send('patch', '/api/demo/marbles', twins);
      expectBulkInvalid(res, [null, { name: ['Same as item 1 of this request.'] }]);
      expect(await t.stored('marbles')).toEqual(MARBLES);
    });

    it('should update marbles from an XML array', async () => {
      const res = await t.raw(
        'put',
        '/api/demo/marbles',
        'application/xml',
        NULL_PRICE_AND_BLUE_XML,
      );
      expectJson(res, 200);
      expect(res.body.message).toBe('Bulk update successful.');
      expect(pick(res.body.records, 'id', 'price', 'description')).toEqual([
        [1, null, ''],
        [2, null, 'deep blue'],
      ]);
      const rows = await t.stored('marbles');
      expect(rows.map((r) => [r.id, r.price, r.description])).toEqual([
        [1, null, ''],
        [2, null, 'deep blue'],
      ]);
      expect(
        rows.every((r) => r.updated_at !== dbTime(T2_ISO) && r.created_at === AMBER.created_at),
      ).toBe(true);
    });

    it('should update e-mails and phone numbers in bulk', async () => {
      const { res: emails } = await t.send('patch', '/api/demo/emails', [
        { id: 2, email: 'robert@example.com', user_id: 3 },
      ]);
      expectJson(emails, 200);
      expect(emails.body).toEqual(
        bulkDone('update', [{ id: 2, email: 'robert@example.com', is_primary: false, user: CLEO }]),
      );
      expect(await t.stored('emails')).toEqual([
        TWO_EMAILS[0],
        { id: 2, email: 'robert@example.com', is_primary: false, user_id: 3 },
      ]);

      const { res: phones } = await t.send('put', '/api/demo/phone_numbers', [
        { id: 1, number: ' 555 0100 ' },
        { id: 2, user_id: 1 },
      ]);
      expectJson(phones, 200);
      expect(phones.body).toEqual(
        bulkDone('update', [
          { id: 1, number: ' 555 0100 ', user: ANN },
          { id: 2, number: '555-0101', user: ANN },
        ]),
      );
      expect(await t.stored('phone_numbers')).toEqual([
        { id: 1, number: ' 555 0100 ', user_id: 1 },
        { id: 2, number: '555-0101', user_id: 1 },
      ]);
    });

    it('should change no phone number when one item is invalid', async () => {
      const { res } = await t.send('patch', '/api/demo/phone_numbers', [
        { id: 1, number: '999' },
        { id: 2, number: ' ' },
      ]);
      expectBulkInvalid(res, [null, { number: ['May not be blank.'] }]);
      expect(await t.stored('phone_numbers')).toEqual(TWO_PHONES);
    });

    it('should answer 405 to PUT and PATCH on the movies collection', async () => {
      for (const method of ['put', 'patch'] as const) {
        const { res } = await t.send(method, '/api/plain/movies', [{ id: 1, name: 'x' }]);
        expectError(res, 405, {
          message: `Method ${method.toUpperCase()} is not allowed here; allowed: GET, HEAD, POST, OPTIONS.`,
        });
        expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      }
    });
  });
});
