/**
 * Create on the marbles, the validation rules: unknown fields rejected, every invalid field
 * reported at once, required and nullable fields, lengths, ranges and precision, and users that
 * must exist; a refused create stores nothing.
 */
import { useApp } from '../support/harness';
import { USERS, marbleRow, storedMarble } from '../support/fixtures';
import {
  UNKNOWN_MARBLE_FIELD,
  expectInvalid,
  expectJson,
  expectNoLeak,
  invalid,
} from '../support/http';

const DECIMAL_FORM =
  'Must be a decimal number in plain digits, such as 12.5 (no exponent, comma or spaces), with ' +
  'at most 2 decimal places.';

const PATH = '/api/demo/marbles';

describe('write: create', () => {
  const t = useApp({ seedEach: { users: USERS } });

  describe('marbles', () => {
    const postXml = (xml: string) => t.sendRaw('post', PATH, 'application/xml', xml);

    it('should reject an unknown field with 400 naming it and store nothing', async () => {
      const { res } = await t.send('post', PATH, { name: 'Colourful', colour: 'red' });
      expectInvalid(res, { colour: [UNKNOWN_MARBLE_FIELD] });
      expect(await t.stored('marbles')).toEqual([]);
    });

    it('should reject an unknown XML element with 400 naming it', async () => {
      const { res } = await postXml(
        '<marble><name>Colourful</name><colour-code>red</colour-code></marble>',
      );
      expectInvalid(res, { colour_code: [UNKNOWN_MARBLE_FIELD] });
      expect(await t.stored('marbles')).toEqual([]);
    });

    it('should list every invalid field at once, uniqueness and a missing user with format errors', async () => {
      await t.insert('marbles', [marbleRow(1, 'Taken')]);
      const { res } = await t.send('post', PATH, {
        name: 'Taken',
        radius_mm: 0,
        price: '1.234',
        is_discounted: 'maybe',
        user_id: 99,
        description: 5,
        colour: 'red',
      });

      expectInvalid(res, {
        name: ['A marble with this name already exists.'],
        radius_mm: ['Must be at least 1.'],
        price: ['Must be a decimal number with at most 2 decimal places.'],
        is_discounted: ['Must be true or false.'],
        user_id: ['No user with id 99.'],
        description: expect.arrayContaining(['Must be a string.']),
        colour: [UNKNOWN_MARBLE_FIELD],
      });
      expect(await t.stored('marbles')).toEqual([marbleRow(1, 'Taken', { is_discounted: false })]);
    });

    it('should require the name', async () => {
      const { res } = await t.send('post', PATH, { radius_mm: 2 });
      expectInvalid(res, { name: ['This field is required.'] });
      const empty = await t.send('post', PATH, {});
      expectInvalid(empty.res, { name: ['This field is required.'] });
      expect(await t.stored('marbles')).toEqual([]);
    });

    it('should accept null only for the nullable price and user_id', async () => {
      const { res } = await t.send('post', PATH, {
        name: null,
        radius_mm: null,
        is_discounted: null,
        description: null,
        price: null,
        user_id: null,
      });
      expectInvalid(res, {
        name: ['This field may not be null.'],
        radius_mm: ['This field may not be null.'],
        is_discounted: ['This field may not be null.'],
        description: ['This field may not be null.'],
      });
      expect(await t.stored('marbles')).toEqual([]);

      const ok = await t.send('post', PATH, { name: 'Nulls', price: null, user_id: null });
      expectJson(ok.res, 201);
      expect(await t.stored('marbles')).toEqual([storedMarble(ok.res, { name: 'Nulls' })]);
    });

    it('should accept a name of 255 characters and reject 256', async () => {
      const longest = 'n'.repeat(255);
      const ok = await t.send('post', PATH, { name: longest });
      expectJson(ok.res, 201);
      expect(ok.res.body.name).toBe(longest);

      const emoji = '😀'.repeat(255);
      const wide = await t.send('post', PATH, { name: emoji });
      expectJson(wide.res, 201);
      expect(wide.res.body.name).toBe(emoji);

      const { res } = await t.send('post', PATH, { name: 'n'.repeat(256) });
      expectInvalid(res, { name: ['Must be at most 255 characters long.'] });
      expect((await t.stored('marbles')).map((r) => r.name)).toEqual([longest, emoji]);
    });

    it('should reject a blank name', async () => {
      for (const name of ['', '   ', '\t\n']) {
        const { res } = await t.send('post', PATH, { name });
        expectInvalid(res, { name: ['May not be blank.'] });
      }
      expect(await t.stored('marbles')).toEqual([]);
    });

    it('should require radius_mm to be an integer of at least 1', async () => {
      const ok = await t.send('post', PATH, { name: 'Smallest', radius_mm: 1 });
      expectJson(ok.res, 201);
      expect(ok.res.body.radius_mm).toBe(1);

      for (const radius of [0, -5]) {
        const { res } = await t.send('post', PATH, { name: 'Too small', radius_mm: radius });
        expectInvalid(res, { radius_mm: ['Must be at least 1.'] });
      }
      const fraction = await t.send('post', PATH, { name: 'Fraction', radius_mm: 2.5 });
      expectInvalid(fraction.res, { radius_mm: ['Must be an integer.'] });
      const word = await t.send('post', PATH, { name: 'Word', radius_mm: 'three' });
      expectInvalid(word.res, { radius_mm: expect.arrayContaining(['Must be an integer.']) });
      expect((await t.stored('marbles')).map((r) => r.name)).toEqual(['Smallest']);
    });

    it('should accept prices above 0 up to 9999.99 with at most 2 decimals', async () => {
      for (const [i, [sent, shown]] of [
        ['0.01', '0.01'],
        ['9999.99', '9999.99'],
        ['0.5', '0.5'],
        [12, '12.0'],
        // A JSON number is read as the number it is, written with an exponent or not.
        [1e3, '1000.0'],
      ].entries()) {
        const { res } = await t.send('post', PATH, { name: `Priced ${i}`, price: sent });
        expectJson(res, 201);
        expect(res.body.price).toBe(shown);
      }
      expect((await t.stored('marbles')).map((r) => r.price)).toEqual([
        '0.01',
        '9999.99',
        '0.5',
        '12.0',
        '1000.0',
      ]);
    });

    it('should reject prices of 0 or less and above 9999.99', async () => {
      for (const [sent, shown] of [
        ['0', '0.0'],
        ['0.00', '0.0'],
        ['-1', '-1.0'],
        ['10000', '10000.0'],
        [10000, '10000.0'],
      ]) {
        const { res } = await t.send('post', PATH, { name: 'Bad price', price: sent });
        expectInvalid(res, {
          price: [`Must be greater than 0 and at most 9999.99; got ${shown}.`],
        });
      }
      expect(await t.stored('marbles')).toEqual([]);
    });

    it('should reject prices with more than 2 decimals', async () => {
      for (const price of ['1.234', '0.001', 1.005]) {
        const { res } = await t.send('post', PATH, { name: 'Precise', price });
        expectInvalid(res, { price: ['Must be a decimal number with at most 2 decimal places.'] });
      }
      expect(await t.stored('marbles')).toEqual([]);
    });

    it('should reject a price that is not a decimal number with 400, not 500, and show the form', async () => {
      const prices: unknown[] = ['abc', '1e3', 1e-7, '', '12,50', ' 5', '0x10', true];
      const answers = [];
      for (const price of prices) {
        const { res } = await t.send('post', PATH, { name: 'Not a number', price });
        expectNoLeak(res);
        answers.push({ price, status: res.status, body: res.body });
      }
      expect(answers).toEqual(
        prices.map((price) => ({
          price,
          status: 400,
          body: invalid({ price: expect.arrayContaining([DECIMAL_FORM]) }),
        })),
      );
      expect(await t.stored('marbles')).toEqual([]);
    });

    it('should reject a user_id of a user that does not exist', async () => {
      const { res } = await t.send('post', PATH, { name: 'Orphan', user_id: 99 });
      expectInvalid(res, { user_id: ['No user with id 99.'] });
      const zero = await t.send('post', PATH, { name: 'Orphan', user_id: 0 });
      expectInvalid(zero.res, { user_id: ['Must be at least 1.'] });
      expect(await t.stored('marbles')).toEqual([]);
    });

    it('should store a long description exactly or refuse it with 400 naming it, never 500', async () => {
      const description = 'd'.repeat(70_000);
      const { res } = await t.send('post', PATH, { name: 'Verbose', description });
      expect([201, 400]).toContain(res.status);
      if (res.status === 201) {
        expect(res.body.description).toBe(description);
        expect((await t.stored('marbles'))[0].description).toBe(description);
      } else {
        expectInvalid(res, { description: [expect.any(String)] });
        expect(await t.stored('marbles')).toEqual([]);
      }
    });
  });
});
