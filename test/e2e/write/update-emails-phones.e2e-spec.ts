/**
 * Update of one e-mail or phone number: PUT and PATCH are both partial, numbers kept exactly as
 * sent, 404 for a missing or malformed id, read-only fields sent back ignored, and invalid updates
 * change nothing. Every write is checked against the stored rows.
 */
import { useApp } from '../support/harness';
import { ANN, BOB, CLEO, TWO_EMAILS, TWO_PHONES, USERS } from '../support/fixtures';
import { expectInvalid, expectJson, expectNotFound } from '../support/http';

const METHODS = ['put', 'patch'] as const;

describe('write: update', () => {
  const t = useApp({ seedEach: { users: USERS, emails: TWO_EMAILS, phone_numbers: TWO_PHONES } });

  describe('emails', () => {
    const PATH = '/api/demo/emails';

    for (const method of METHODS) {
      it(`should change the address and owner via ${method.toUpperCase()}`, async () => {
        const { res } = await t.send(method, `${PATH}/2`, {
          email: 'robert@example.com',
          user_id: '3',
        });
        const robert = { id: 2, email: 'robert@example.com', is_primary: false };
        expectJson(res, 200);
        expect(res.body).toEqual({ ...robert, user: CLEO });
        expect(await t.stored('emails')).toEqual([TWO_EMAILS[0], { ...robert, user_id: 3 }]);
      });
    }

    it('should answer 404 for a missing e-mail', async () => {
      const res = await t.http().patch(`${PATH}/9`).send({ email: 'x@example.com' });
      expectNotFound(res, 'Email 9 not found.');
      const word = await t.http().put(`${PATH}/abc`).send({ email: 'x@example.com' });
      expectNotFound(word, 'Email abc not found.');
    });

    it('should reject a bad address, a taken address and a missing user, changing nothing', async () => {
      const bad = await t.send('patch', `${PATH}/2`, { email: 'bob at example', user_id: 99 });
      expectInvalid(bad.res, {
        email: ['Must be a valid e-mail address.'],
        user_id: ['No user with id 99.'],
      });
      const taken = await t.send('put', `${PATH}/2`, { email: 'ann@example.com' });
      expectInvalid(taken.res, { email: ['An email with this email already exists.'] });
      expect(await t.stored('emails')).toEqual([
        { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
        { id: 2, email: 'bob@example.com', is_primary: false, user_id: 2 },
      ]);
    });

    it('should ignore user and billing_user sent back', async () => {
      const { res } = await t.send('patch', `${PATH}/2`, {
        id: 1,
        user: CLEO,
        billing_user: ANN,
        is_primary: '0',
      });
      expectJson(res, 200);
      expect(res.body).toEqual({ id: 2, email: 'bob@example.com', is_primary: false, user: BOB });
      expect((await t.rows('users')).map((u) => u.email_id)).toEqual([null, null, null]);
    });
  });

  describe('phone numbers', () => {
    const PATH = '/api/demo/phone_numbers';

    for (const method of METHODS) {
      it(`should keep an updated number exactly as sent via ${method.toUpperCase()}`, async () => {
        const { res } = await t.send(method, `${PATH}/1`, { number: ' +1 (555) 999.0000 ' });
        expectJson(res, 200);
        expect(res.body).toEqual({ id: 1, number: ' +1 (555) 999.0000 ', user: ANN });
        expect(await t.stored('phone_numbers')).toEqual([
          { id: 1, number: ' +1 (555) 999.0000 ', user_id: 1 },
          { id: 2, number: '555-0101', user_id: 2 },
        ]);
      });
    }

    it('should change the owner alone', async () => {
      const { res } = await t.send('patch', `${PATH}/2`, { phone_number: { user_id: 3 } });
      expectJson(res, 200);
      expect(res.body).toEqual({ id: 2, number: '555-0101', user: CLEO });
      expect((await t.stored('phone_numbers'))[1]).toEqual({
        id: 2,
        number: '555-0101',
        user_id: 3,
      });
    });

    it('should reject a blank or taken number and a null owner, changing nothing', async () => {
      const blank = await t.send('put', `${PATH}/1`, { number: '  ', user_id: null });
      expectInvalid(blank.res, {
        number: ['May not be blank.'],
        user_id: ['This field may not be null.'],
      });
      const taken = await t.send('patch', `${PATH}/1`, { number: '555-0101' });
      expectInvalid(taken.res, { number: ['A phone number with this number already exists.'] });
      const missing = await t.send('patch', `${PATH}/7`, { number: '1' });
      expectNotFound(missing.res, 'Phone number 7 not found.');
      expect(await t.stored('phone_numbers')).toEqual([
        { id: 1, number: '555-0100', user_id: 1 },
        { id: 2, number: '555-0101', user_id: 2 },
      ]);
    });
  });
});
