/**
 * Create on the e-mails and phone numbers: 201 with the record and Location, bare and wrapped
 * bodies in JSON and XML, numbers kept exactly as sent, read-only fields ignored, and every
 * validation rule with every invalid field reported at once. Each write is checked against the
 * stored rows.
 */
import { useApp } from '../support/harness';
import { ANN, BOB, CLEO, USERS } from '../support/fixtures';
import { expectInvalid, expectJson, expectLocation } from '../support/http';

describe('write: create', () => {
  const t = useApp({ seedEach: { users: USERS } });

  describe('emails', () => {
    const PATH = '/api/demo/emails';
    const postXml = (xml: string) => t.sendRaw('post', PATH, 'application/xml', xml);

    it('should create an e-mail from a bare JSON object with 201, the record and Location', async () => {
      const { res } = await t.send('post', PATH, { email: 'ann@example.com', user_id: 1 });

      expectJson(res, 201);
      const id = await t.onlyId('emails');
      expectLocation(res, `/api/demo/emails/${id}`);
      expect(res.body).toEqual({ id, email: 'ann@example.com', is_primary: false, user: ANN });
      expect(Object.keys(res.body)).toEqual(['id', 'email', 'is_primary', 'user']);
      expect(await t.stored('emails')).toEqual([
        { id, email: 'ann@example.com', is_primary: false, user_id: 1 },
      ]);
    });

    it('should accept a wrapped JSON body with string spellings of boolean and id', async () => {
      const { res } = await t.send('post', PATH, {
        email: { email: 'bob@example.org', is_primary: 'true', user_id: '2' },
      });

      expectJson(res, 201);
      const id = await t.onlyId('emails');
      expectLocation(res, `/api/demo/emails/${id}`);
      expect(res.body).toEqual({ id, email: 'bob@example.org', is_primary: true, user: BOB });
      expect(await t.stored('emails')).toEqual([
        { id, email: 'bob@example.org', is_primary: true, user_id: 2 },
      ]);
    });

    it('should accept bare and wrapped XML bodies', async () => {
      const bare = await postXml(
        '<email><email>cleo@example.net</email><is-primary type="boolean">true</is-primary>' +
          '<user-id type="integer">3</user-id></email>',
      );
      expectJson(bare.res, 201);
      const first = await t.onlyId('emails');
      expect(bare.res.body).toEqual({
        id: first,
        email: 'cleo@example.net',
        is_primary: true,
        user: CLEO,
      });

      const wrapped = await postXml(
        '<hash><email><email>cleo.work@example.net</email><user-id>3</user-id></email></hash>',
      );
      expectJson(wrapped.res, 201);
      const second = (await t.ids('emails'))[1];
      expectLocation(wrapped.res, `/api/demo/emails/${second}`);
      expect(wrapped.res.body).toEqual({
        id: second,
        email: 'cleo.work@example.net',
        is_primary: false,
        user: CLEO,
      });

      expect(await t.stored('emails')).toEqual([
        { id: first, email: 'cleo@example.net', is_primary: true, user_id: 3 },
        { id: second, email: 'cleo.work@example.net', is_primary: false, user_id: 3 },
      ]);
    });

    it('should ignore id, user and billing_user sent back', async () => {
      const { res } = await t.send('post', PATH, {
        id: 40,
        email: 'echo@example.com',
        is_primary: false,
        user: BOB,
        billing_user: CLEO,
        user_id: 1,
      });

      expectJson(res, 201);
      const id = await t.onlyId('emails');
      expect(id).not.toBe(40);
      expectLocation(res, `/api/demo/emails/${id}`);
      expect(res.body).toEqual({ id, email: 'echo@example.com', is_primary: false, user: ANN });
      expect(await t.stored('emails')).toEqual([
        { id, email: 'echo@example.com', is_primary: false, user_id: 1 },
      ]);
      expect((await t.rows('users')).map((u) => u.email_id)).toEqual([null, null, null]);
    });

    it('should require email and user_id', async () => {
      const { res } = await t.send('post', PATH, { is_primary: true });
      expectInvalid(res, {
        email: ['This field is required.'],
        user_id: ['This field is required.'],
      });
      const nulls = await t.send('post', PATH, { email: null, user_id: null, is_primary: null });
      expectInvalid(nulls.res, {
        email: ['This field may not be null.'],
        user_id: ['This field may not be null.'],
        is_primary: ['This field may not be null.'],
      });
      expect(await t.stored('emails')).toEqual([]);
    });

    it('should list a bad address, a missing user and a bad flag at once', async () => {
      const { res } = await t.send('post', PATH, {
        email: 'not-an-email',
        user_id: 99,
        is_primary: 'perhaps',
      });
      expectInvalid(res, {
        email: ['Must be a valid e-mail address.'],
        user_id: ['No user with id 99.'],
        is_primary: ['Must be true or false.'],
      });
      expect(await t.stored('emails')).toEqual([]);
    });

    it('should report a taken address together with a missing user', async () => {
      await t.insert('emails', [
        { id: 1, email: 'ann@example.com', is_primary: false, user_id: 1 },
      ]);
      const { res } = await t.send('post', PATH, {
        email: 'ann@example.com',
        user_id: 99,
        address: 'x',
      });
      expectInvalid(res, {
        email: ['An email with this email already exists.'],
        user_id: ['No user with id 99.'],
        address: ['Unknown field; email has no such field.'],
      });
      expect(await t.stored('emails')).toEqual([
        { id: 1, email: 'ann@example.com', is_primary: false, user_id: 1 },
      ]);
    });

    it('should accept a long valid address and reject one over 255 characters', async () => {
      // 254 characters is the longest address RFC 5321 allows, so the longest one that can pass.
      const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.com`;
      const longest = `${'l'.repeat(58)}@${domain}`;
      const tooLong = `${'l'.repeat(60)}@${domain}`;
      expect([longest.length, tooLong.length]).toEqual([254, 256]);

      const ok = await t.send('post', PATH, { email: longest, user_id: 1 });
      expectJson(ok.res, 201);
      expect(ok.res.body.email).toBe(longest);
      const { res } = await t.send('post', PATH, { email: tooLong, user_id: 1 });
      expectInvalid(res, {
        email: expect.arrayContaining(['Must be at most 255 characters long.']),
      });
      expect((await t.stored('emails')).map((e) => e.email)).toEqual([longest]);
    });
  });

  describe('phone numbers', () => {
    const PATH = '/api/demo/phone_numbers';
    const postXml = (xml: string) => t.sendRaw('post', PATH, 'application/xml', xml);

    it('should keep the number exactly as sent', async () => {
      const numbers = [
        ' +1 (555) 010-0000 ext. 7 ',
        '555.010.0001',
        '(555) 010 0002',
        '+44 20 7946 0958',
        '555-0100',
        '555-0100 ',
      ];
      const ids: number[] = [];
      for (const number of numbers) {
        const { res } = await t.send('post', PATH, { number, user_id: 1 });
        expectJson(res, 201);
        const id = await t.lastId('phone_numbers');
        ids.push(id);
        expectLocation(res, `/api/demo/phone_numbers/${id}`);
        expect(res.body).toEqual({ id, number, user: ANN });
      }
      expect(await t.stored('phone_numbers')).toEqual(
        numbers.map((number, i) => ({ id: ids[i], number, user_id: 1 })),
      );
    });

    it('should accept wrapped JSON and bare and wrapped XML bodies', async () => {
      const wrapped = await t.send('post', PATH, {
        phone_number: { number: '555-0101', user_id: '2' },
      });
      expectJson(wrapped.res, 201);
      const first = await t.lastId('phone_numbers');
      expect(wrapped.res.body).toEqual({ id: first, number: '555-0101', user: BOB });

      const bare = await postXml(
        '<phone-number><number>(555) 0102</number><user-id type="integer">3</user-id></phone-number>',
      );
      expectJson(bare.res, 201);
      const second = await t.lastId('phone_numbers');
      expect(bare.res.body).toEqual({ id: second, number: '(555) 0102', user: CLEO });

      const hash = await postXml(
        '<hash><phone-number><number>555 0103</number><user-id>1</user-id></phone-number></hash>',
      );
      expectJson(hash.res, 201);
      const third = await t.lastId('phone_numbers');
      expect(hash.res.body).toEqual({ id: third, number: '555 0103', user: ANN });

      expect(await t.stored('phone_numbers')).toEqual([
        { id: first, number: '555-0101', user_id: 2 },
        { id: second, number: '(555) 0102', user_id: 3 },
        { id: third, number: '555 0103', user_id: 1 },
      ]);
    });

    it('should reject a blank number', async () => {
      for (const number of ['', '   ', '\t']) {
        const { res } = await t.send('post', PATH, { number, user_id: 1 });
        expectInvalid(res, { number: ['May not be blank.'] });
      }
      expect(await t.stored('phone_numbers')).toEqual([]);
    });

    it('should require number and user_id and list every problem at once', async () => {
      const { res } = await t.send('post', PATH, {});
      expectInvalid(res, {
        number: ['This field is required.'],
        user_id: ['This field is required.'],
      });

      await t.insert('phone_numbers', [{ id: 1, number: '555-0100', user_id: 1 }]);
      const taken = await t.send('post', PATH, { number: '555-0100', user_id: 42, extension: '7' });
      expectInvalid(taken.res, {
        number: ['A phone number with this number already exists.'],
        user_id: ['No user with id 42.'],
        extension: ['Unknown field; phone_number has no such field.'],
      });
      expect(await t.stored('phone_numbers')).toEqual([{ id: 1, number: '555-0100', user_id: 1 }]);
    });

    it('should accept a number of 255 characters and reject 256', async () => {
      const ok = await t.send('post', PATH, { number: '5'.repeat(255), user_id: 1 });
      expectJson(ok.res, 201);
      const { res } = await t.send('post', PATH, { number: '5'.repeat(256), user_id: 1 });
      expectInvalid(res, { number: ['Must be at most 255 characters long.'] });
      expect(await t.stored('phone_numbers')).toEqual([
        { id: ok.res.body.id, number: '5'.repeat(255), user_id: 1 },
      ]);
    });
  });
});
