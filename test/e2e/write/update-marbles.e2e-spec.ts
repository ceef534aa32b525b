/**
 * Update of one marble: PUT and PATCH are both partial, 404 for a missing or malformed id,
 * `updated_at` moves forward on every update and `created_at` never does, read-only fields sent
 * back are ignored, and invalid updates change nothing. Every write is checked against the stored
 * rows.
 */
import { useApp } from '../support/harness';
import { ANN, CLEO, T1_ISO, USERS, dbTime, marbleRow } from '../support/fixtures';
import {
  UNKNOWN_MARBLE_FIELD,
  expectError,
  expectInvalid,
  expectJson,
  expectStampedWithin,
  expectXml,
} from '../support/http';

const METHODS = ['put', 'patch'] as const;

const AMBER = marbleRow(1, 'Amber', {
  radius_mm: 12,
  price: '9.23',
  user_id: 1,
  description: 'warm',
  picture: 'amber.png',
});
const COBALT = marbleRow(2, 'Cobalt', { radius_mm: 8, price: '4.0', is_discounted: true });

const AMBER_JSON = {
  id: 1,
  name: 'Amber',
  radius_mm: 12,
  price: '9.23',
  is_discounted: false,
  created_at: T1_ISO,
  updated_at: '2024-05-02T08:30:15.000Z',
  user: ANN,
  description: 'warm',
  picture: 'amber.png',
};

describe('write: update', () => {
  const t = useApp({ seedEach: { users: USERS, marbles: [AMBER, COBALT] } });

  describe('marbles', () => {
    const PATH = '/api/demo/marbles';

    for (const method of METHODS) {
      it(`should change only the fields sent via ${method.toUpperCase()}`, async () => {
        const { res, before, after } = await t.send(method, `${PATH}/1`, {
          price: '5',
          radius_mm: '13',
        });

        expectJson(res, 200);
        expect(res.headers.location).toBeUndefined();
        expect(res.body).toEqual({
          ...AMBER_JSON,
          price: '5.0',
          radius_mm: 13,
          updated_at: expect.any(String),
        });
        expectStampedWithin(res.body.updated_at, before, after);
        expect(await t.stored('marbles')).toEqual([
          { ...AMBER, price: '5.0', radius_mm: 13, updated_at: dbTime(res.body.updated_at) },
          COBALT,
        ]);
      });

      it(`should answer 404 via ${method.toUpperCase()} for a missing id, a word and 0, changing nothing`, async () => {
        const answers = [];
        for (const id of ['99', 'abc', '0', '-1']) {
          const res = await t.http()[method](`${PATH}/${id}`).send({ name: 'Ghost' });
          expectJson(res, 404);
          answers.push(res.body);
        }
        expect(answers).toEqual([
          { message: 'Marble 99 not found.' },
          { message: 'Marble abc not found.' },
          { message: 'Marble 0 not found.' },
          { message: 'Marble -1 not found.' },
        ]);
        expect(await t.stored('marbles')).toEqual([AMBER, COBALT]);
      });
    }

    it('should move updated_at a millisecond past a stored time the clock has not reached', async () => {
      await t.query("UPDATE marbles SET updated_at = '2999-12-31 23:59:59.998' WHERE id = 1");
      const first = await t.http().patch(`${PATH}/1`).send({ radius_mm: 4 });
      expectJson(first, 200);
      expect(first.body.updated_at).toBe('2999-12-31T23:59:59.999Z');
      const second = await t.http().patch(`${PATH}/1`).set('If-Match', '"1.2"').send({});
      expectJson(second, 200);
      expect([second.body.updated_at, second.headers.etag]).toEqual([
        '3000-01-01T00:00:00.000Z',
        '"1.3"',
      ]);
    });

    it('should move updated_at forward on every update and never change created_at', async () => {
      const created = await t.http().post(PATH).send({ name: 'Fresh' });
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      const stamps = [created.body.updated_at as string];
      for (const body of [{ radius_mm: 2 }, {}, { description: 'again' }, { radius_mm: 2 }]) {
        const res = await t.http().patch(`${PATH}/${id}`).send(body);
        expectJson(res, 200);
        expect(res.body.created_at).toBe(created.body.created_at);
        expect(res.body.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(Date.parse(res.body.updated_at)).toBeGreaterThan(
          Date.parse(stamps[stamps.length - 1]),
        );
        stamps.push(res.body.updated_at);
      }
      const [row] = (await t.stored('marbles')).filter((r) => r.id === id);
      expect(row).toEqual({
        ...marbleRow(id, 'Fresh'),
        radius_mm: 2,
        price: null,
        description: 'again',
        created_at: dbTime(created.body.created_at),
        updated_at: dbTime(stamps[stamps.length - 1]),
      });
    });

    it('should accept a record read with GET and sent back, ignoring its read-only fields', async () => {
      const read = (await t.http().get(`${PATH}/1`)).body;
      const { res, before, after } = await t.send('put', `${PATH}/1`, {
        ...read,
        id: 2,
        name: 'Amber Prime',
        created_at: '2000-01-01T00:00:00.000Z',
        user: CLEO,
        picture: null,
      });

      expectJson(res, 200);
      expect(res.body).toEqual({
        ...AMBER_JSON,
        name: 'Amber Prime',
        updated_at: expect.any(String),
      });
      expectStampedWithin(res.body.updated_at, before, after);
      expect(await t.stored('marbles')).toEqual([
        { ...AMBER, name: 'Amber Prime', updated_at: dbTime(res.body.updated_at) },
        COBALT,
      ]);
    });

    it('should clear the nullable price and owner with null', async () => {
      const { res } = await t.send('patch', `${PATH}/1`, { price: null, user_id: null });
      expectJson(res, 200);
      const { user: _omitted, ...withoutUser } = AMBER_JSON;
      expect(res.body).toEqual({ ...withoutUser, price: null, updated_at: expect.any(String) });
      expect(await t.stored('marbles')).toEqual([
        { ...AMBER, price: null, user_id: null, updated_at: dbTime(res.body.updated_at) },
        COBALT,
      ]);
    });

    it('should accept a wrapped JSON body and an XML body', async () => {
      const wrapped = await t.send('patch', `${PATH}/2`, {
        marble: { is_discounted: 'false', user_id: 3 },
      });
      expectJson(wrapped.res, 200);
      expect(wrapped.res.body).toMatchObject({ id: 2, is_discounted: false, user: CLEO });

      const xml = await t.request({
        method: 'put',
        path: `${PATH}/2`,
        type: 'application/xml',
        body: '<marble><price type="decimal">3.30</price><description>Blue &amp; deep</description></marble>',
      });
      expectJson(xml, 200);
      expect(xml.body).toEqual({
        id: 2,
        name: 'Cobalt',
        radius_mm: 8,
        price: '3.3',
        is_discounted: false,
        created_at: T1_ISO,
        updated_at: expect.any(String),
        user: CLEO,
        description: 'Blue & deep',
        picture: null,
      });
      expect(await t.stored('marbles')).toEqual([
        AMBER,
        {
          ...COBALT,
          price: '3.3',
          is_discounted: false,
          user_id: 3,
          description: 'Blue & deep',
          updated_at: dbTime(xml.body.updated_at),
        },
      ]);
    });

    it('should answer an update in XML when XML is negotiated', async () => {
      const res = await t.http().patch(`${PATH}/2.xml`).send({ radius_mm: 9 });
      expectXml(res, 200);
      expect(res.text).toContain(
        '<id type="integer">2</id><name>Cobalt</name><radius-mm type="integer">9</radius-mm>',
      );
      expect((await t.stored('marbles'))[1].radius_mm).toBe(9);
    });

    it('should reject every invalid field at once and change nothing', async () => {
      const { res } = await t.send('patch', `${PATH}/1`, {
        name: 'Cobalt',
        radius_mm: 0,
        price: '10000',
        user_id: 99,
        colour: 'red',
      });
      expectInvalid(res, {
        name: ['A marble with this name already exists.'],
        radius_mm: ['Must be at least 1.'],
        price: ['Must be greater than 0 and at most 9999.99; got 10000.0.'],
        user_id: ['No user with id 99.'],
        colour: [UNKNOWN_MARBLE_FIELD],
      });
      expect(await t.stored('marbles')).toEqual([AMBER, COBALT]);
    });

    it('should refuse null for a field that is not nullable', async () => {
      const { res } = await t.send('put', `${PATH}/1`, { name: null, is_discounted: null });
      expectInvalid(res, {
        name: ['This field may not be null.'],
        is_discounted: ['This field may not be null.'],
      });
      expect(await t.stored('marbles')).toEqual([AMBER, COBALT]);
    });

    it('should let a marble keep its own name', async () => {
      const { res } = await t.send('put', `${PATH}/1`, { name: 'Amber', radius_mm: 14 });
      expectJson(res, 200);
      expect(res.body).toEqual({ ...AMBER_JSON, radius_mm: 14, updated_at: expect.any(String) });
      expect((await t.stored('marbles'))[0]).toEqual({
        ...AMBER,
        radius_mm: 14,
        updated_at: dbTime(res.body.updated_at),
      });
    });

    it('should refuse a body that is not an object', async () => {
      const res = await t.request({ method: 'patch', path: `${PATH}/1`, body: [{ name: 'x' }] });
      expectError(res, 400, { message: 'Request body must be a marble object.' });
      expect(await t.stored('marbles')).toEqual([AMBER, COBALT]);
    });
  });
});
