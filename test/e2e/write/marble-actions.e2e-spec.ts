/**
 * The marble actions: adjust_price and toggle_is_discounted, their answers in JSON and XML, their
 * errors, and their atomicity under concurrent requests; and concurrent creates of one unique name,
 * which must end in one 201 and 400s, never 500.
 */
import { useApp } from '../support/harness';
import { T1, T2, USERS, dbTime, marbleRow } from '../support/fixtures';
import {
  VALIDATION_FAILED,
  expectError,
  expectInvalid,
  expectJson,
  expectNoLeak,
  expectNotFound,
  expectXml,
  xmlMessage,
} from '../support/http';

const AMBER = marbleRow(7, 'Amber', { price: '9.23', is_discounted: false });
const COBALT = marbleRow(8, 'Cobalt', { price: null, is_discounted: true });

describe('write: marble actions and concurrency', () => {
  const t = useApp({ seedEach: { users: USERS, marbles: [AMBER, COBALT] } });

  describe('adjust_price', () => {
    it('should set the price and answer the canonical decimal', async () => {
      const before = Date.now();
      const res = await t.http().patch('/api/demo/marbles/7/adjust_price').send({ price: '12.50' });
      const after = Date.now();

      expectJson(res, 200);
      expect(res.text).toBe('{"message":"Price updated to 12.5."}');
      const [amber, cobalt] = await t.stored('marbles');
      expect(amber).toEqual({ ...AMBER, price: '12.5', updated_at: expect.any(String) });
      expect(cobalt).toEqual(COBALT);
      const updated = Date.parse(`${(amber.updated_at as string).replace(' ', 'T')}Z`);
      expect(updated).toBeGreaterThanOrEqual(before);
      expect(updated).toBeLessThanOrEqual(after);
      expect(amber.created_at).toBe(T1);

      const shown = await t.http().get('/api/demo/marbles/7');
      expect(shown.body.price).toBe('12.5');
    });

    it('should accept a numeric price, a wrapped body and an XML body', async () => {
      const number = await t.http().patch('/api/demo/marbles/8/adjust_price').send({ price: 4 });
      expectJson(number, 200);
      expect(number.body).toEqual({ message: 'Price updated to 4.0.' });

      const wrapped = await t.request({
        method: 'patch',
        path: '/api/demo/marbles/8/adjust_price',
        body: { marble: { price: '0.5' } },
      });
      expectJson(wrapped, 200);
      expect(wrapped.body).toEqual({ message: 'Price updated to 0.5.' });

      const xml = await t.request({
        method: 'patch',
        path: '/api/demo/marbles/8/adjust_price',
        type: 'application/xml',
        body: '<marble><price type="decimal">9999.99</price></marble>',
      });
      expectJson(xml, 200);
      expect(xml.body).toEqual({ message: 'Price updated to 9999.99.' });

      expect((await t.stored('marbles'))[1]).toEqual({
        ...COBALT,
        price: '9999.99',
        updated_at: expect.any(String),
      });
    });

    it('should answer in XML for the .xml suffix and in JSON for .json', async () => {
      const xml = await t.request({
        method: 'patch',
        path: '/api/demo/marbles/7/adjust_price.xml',
        body: { price: '12.50' },
      });
      expectXml(xml, 200);
      expect(xml.text).toBe(xmlMessage('Price updated to 12.5.'));

      const json = await t.request({
        method: 'patch',
        path: '/api/demo/marbles/7/adjust_price.json',
        body: { price: '13' },
      });
      expectJson(json, 200);
      expect(json.body).toEqual({ message: 'Price updated to 13.0.' });
      expect((await t.stored('marbles'))[0].price).toBe('13.0');
    });

    it('should refuse a missing, null or out-of-range price with 400, changing nothing', async () => {
      const cases: [object | undefined, string][] = [
        [undefined, 'This field is required.'],
        [{}, 'This field is required.'],
        [{ price: null }, 'This field may not be null.'],
        [{ price: '0' }, 'Must be greater than 0 and at most 9999.99; got 0.0.'],
        [{ price: '-3' }, 'Must be greater than 0 and at most 9999.99; got -3.0.'],
        [{ price: '10000' }, 'Must be greater than 0 and at most 9999.99; got 10000.0.'],
        [{ price: '1.005' }, 'Must be a decimal number with at most 2 decimal places.'],
      ];
      for (const [body, message] of cases) {
        const req = t.http().patch('/api/demo/marbles/7/adjust_price');
        const res = await (body === undefined ? req : req.send(body));
        expectInvalid(res, { price: [message] });
      }
      expect(await t.stored('marbles')).toEqual([AMBER, COBALT]);
    });

    it('should refuse fields other than price as create and update refuse unknown fields', async () => {
      const unknown = 'Unknown field; adjust_price takes only price.';
      const extra = await t
        .http()
        .patch('/api/demo/marbles/7/adjust_price')
        .send({ price: '3.50', colour: 'red' });
      expectInvalid(extra, { colour: [unknown] });
      const both = await t
        .http()
        .patch('/api/demo/marbles/7/adjust_price')
        .send({ marble: { name: 'Renamed', price: '0' } });
      expectInvalid(both, {
        name: [unknown],
        price: ['Must be greater than 0 and at most 9999.99; got 0.0.'],
      });
      const xml = await t.raw(
        'patch',
        '/api/demo/marbles/7/adjust_price',
        'application/xml',
        '<marble><discount>5</discount></marble>',
      );
      expectInvalid(xml, { discount: [unknown], price: ['This field is required.'] });
      expect(await t.stored('marbles')).toEqual([AMBER, COBALT]);
    });

    it('should refuse a price that is not a number with 400, not 500', async () => {
      const answers = [];
      for (const price of ['abc', '1e2', 'twelve']) {
        const res = await t.http().patch('/api/demo/marbles/7/adjust_price').send({ price });
        expectNoLeak(res);
        answers.push({
          price,
          status: res.status,
          message: res.body.message,
          price_errors: res.body.errors?.price,
        });
      }
      expect(answers).toEqual(
        ['abc', '1e2', 'twelve'].map((price) => ({
          price,
          status: 400,
          message: VALIDATION_FAILED,
          price_errors: expect.arrayContaining([
            'Must be a decimal number in plain digits, such as 12.5 (no exponent, comma or ' +
              'spaces), with at most 2 decimal places.',
          ]),
        })),
      );
      expect(await t.stored('marbles')).toEqual([AMBER, COBALT]);
    });

    it('should answer 404 for a missing marble', async () => {
      const res = await t.http().patch('/api/demo/marbles/99/adjust_price').send({ price: '1.00' });
      expectNotFound(res, 'Marble 99 not found.');
      const word = await t.request({
        method: 'patch',
        path: '/api/demo/marbles/abc/adjust_price',
        body: { price: '1.00' },
      });
      expectNotFound(word, 'Marble abc not found.');
      expect(await t.stored('marbles')).toEqual([AMBER, COBALT]);
    });

    it('should answer 405 with Allow for a method the route does not serve', async () => {
      const res = await t.http().post('/api/demo/marbles/7/adjust_price').send({ price: '1.00' });
      expectError(res, 405, {
        message: 'Method POST is not allowed here; allowed: PATCH, OPTIONS.',
      });
      expect(res.headers.allow).toBe('PATCH, OPTIONS');
      expect(await t.stored('marbles')).toEqual([AMBER, COBALT]);
    });
  });

  describe('updated_at of the actions', () => {
    it('should move updated_at forward on every action, even within one millisecond', async () => {
      const stamps: string[] = [];
      for (let i = 0; i < 6; i++) {
        const action = i % 2 ? 'toggle_is_discounted' : 'adjust_price';
        await t
          .http()
          .patch(`/api/demo/marbles/7/${action}`)
          .send({ price: `${i + 1}.00` })
          .expect(200);
        const [amber] = await t.stored('marbles');
        stamps.push(String(amber.updated_at));
      }
      expect([...stamps].sort()).toEqual(stamps);
      expect(new Set(stamps).size).toBe(stamps.length);
    });
  });

  describe('toggle_is_discounted', () => {
    it('should flip the flag and say what it set, without a body', async () => {
      const first = await t.http().patch('/api/demo/marbles/7/toggle_is_discounted');
      expectJson(first, 200);
      expect(first.text).toBe('{"message":"Is discounted toggled to true."}');
      let [amber] = await t.stored('marbles');
      expect(amber).toEqual({ ...AMBER, is_discounted: true, updated_at: expect.any(String) });
      expect(amber.updated_at).not.toBe(T2);

      const second = await t.http().patch('/api/demo/marbles/7/toggle_is_discounted').send({});
      expectJson(second, 200);
      expect(second.body).toEqual({ message: 'Is discounted toggled to false.' });
      [amber] = await t.stored('marbles');
      expect(amber.is_discounted).toBe(false);

      const shown = await t.http().get('/api/demo/marbles/7');
      expect(shown.body.is_discounted).toBe(false);
      expect(shown.body.updated_at).toBe(`${(amber.updated_at as string).replace(' ', 'T')}Z`);
      expect((await t.stored('marbles'))[1]).toEqual(COBALT);
    });

    it('should answer in XML when XML is negotiated', async () => {
      const res = await t.request({
        method: 'patch',
        path: '/api/demo/marbles/8/toggle_is_discounted',
        accept: 'application/xml',
      });
      expectXml(res, 200);
      expect(res.text).toBe(xmlMessage('Is discounted toggled to false.'));
      expect((await t.stored('marbles'))[1].is_discounted).toBe(false);
    });

    it('should answer 404 for a missing marble', async () => {
      expectNotFound(
        await t.http().patch('/api/demo/marbles/99/toggle_is_discounted'),
        'Marble 99 not found.',
      );
      expectNotFound(
        await t.http().patch('/api/demo/marbles/0/toggle_is_discounted'),
        'Marble 0 not found.',
      );
      expect(await t.stored('marbles')).toEqual([AMBER, COBALT]);
    });

    it('should flip the flag exactly 20 times under 20 concurrent toggles', async () => {
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.http().patch('/api/demo/marbles/7/toggle_is_discounted'),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(new Array(20).fill(200));
      const messages = responses.map((r) => r.body.message as string);
      expect(messages.filter((m) => m === 'Is discounted toggled to true.')).toHaveLength(10);
      expect(messages.filter((m) => m === 'Is discounted toggled to false.')).toHaveLength(10);
      const [amber, cobalt] = await t.stored('marbles');
      expect(amber.is_discounted).toBe(false);
      expect(cobalt).toEqual(COBALT);
    });

    it('should keep every concurrent price adjustment whole', async () => {
      const prices = ['1.10', '2.20', '3.30', '4.40', '5.50', '6.60', '7.70', '8.80'];
      const responses = await Promise.all(
        prices.map((price) => t.http().patch('/api/demo/marbles/7/adjust_price').send({ price })),
      );
      expect(responses.map((r) => r.status)).toEqual(new Array(prices.length).fill(200));
      const [amber] = await t.stored('marbles');
      expect(prices.map((p) => p.replace(/0$/, ''))).toContain(amber.price);
    });
  });

  describe('concurrent creates', () => {
    it('should answer exactly one 201 and nine 400 for 10 concurrent creates of one name', async () => {
      const bodies = Array.from({ length: 10 }, (_, i) => ({
        name: 'Contested',
        radius_mm: i + 1,
      }));
      const responses = await Promise.all(
        bodies.map((body) => t.request({ method: 'post', path: '/api/demo/marbles', body })),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
      for (const res of responses) {
        expectNoLeak(res);
        if (res.status === 400) {
          expect(res.body).toEqual({
            message: VALIDATION_FAILED,
            errors: { name: ['A marble with this name already exists.'] },
          });
        }
      }
      const created = responses.find((r) => r.status === 201)!;
      const rows = await t.stored('marbles');
      expect(rows).toEqual([
        AMBER,
        COBALT,
        {
          ...marbleRow(created.body.id, 'Contested'),
          radius_mm: created.body.radius_mm,
          price: null,
          created_at: dbTime(created.body.created_at),
          updated_at: dbTime(created.body.updated_at),
        },
      ]);
    });

    it('should create all of 10 concurrent creates with distinct names', async () => {
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.request({ method: 'post', path: '/api/demo/marbles', body: { name: `Racer ${i}` } }),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(new Array(10).fill(201));
      const ids = responses.map((r) => r.body.id as number);
      expect(new Set(ids).size).toBe(10);
      const rows = await t.stored('marbles');
      expect(rows.map((r) => r.name).sort()).toEqual(
        ['Amber', 'Cobalt', ...Array.from({ length: 10 }, (_, i) => `Racer ${i}`)].sort(),
      );
    });
  });
});
