/**
 * Atomic operations (CONTRACT §15, docs/operations-api.md): `POST /api/operations` runs its
 * operations in order in one transaction over several collections; each answers as its own route
 * would; refs name the records a request creates; a bad shape is refused before anything runs,
 * every problem named by its place; a failing operation rolls the whole request back and answers
 * its own status, naming it; the change feed gets the events in operation order with the
 * request's id; Idempotency-Key covers the request.
 */
import { EventsRuntime } from '../../../src/events/events.module';
import { useApp } from '../support/harness';
import { TWO_EMAILS, TWO_PHONES, USERS, marbleRow } from '../support/fixtures';
import { expectJson, expectXml } from '../support/http';
import { feedHead } from '../events/sse';

const AMBER = marbleRow(7, 'Amber', { price: '9.23', is_discounted: false });
const COBALT = marbleRow(8, 'Cobalt', { price: null, is_discounted: true });
const SEED = {
  users: USERS,
  marbles: [AMBER, COBALT],
  emails: TWO_EMAILS,
  phone_numbers: TWO_PHONES,
};

type Row = Record<string, unknown>;

describe('atomic operations', () => {
  const t = useApp({ seedEach: SEED });

  const post = (body: unknown) =>
    t
      .http()
      .post('/api/operations')
      .send(body as object);

  /** Every table the suite writes, as stored: what "nothing changed" compares. */
  async function snapshot(): Promise<Row[][]> {
    return Promise.all(['marbles', 'emails', 'phone_numbers'].map((table) => t.stored(table)));
  }

  it('should run writes over several collections in order and answer each as its route does', async () => {
    const res = await post({
      operations: [
        { op: 'create', collection: 'marbles', ref: 'm', record: { name: 'Opal', user_id: 2 } },
        { op: 'adjust_price', collection: 'marbles', id: { ref: 'm' }, record: { price: '12.50' } },
        { op: 'update', collection: 'phone_numbers', id: 1, record: { user_id: 2 } },
        {
          op: 'create',
          collection: 'emails',
          record: { email: { email: 'bo@example.com', user_id: 2 } },
        },
        { op: 'toggle_is_discounted', collection: 'marbles', id: 7 },
        { op: 'destroy', collection: 'marbles', id: 8 },
      ],
    });

    expectJson(res, 200);
    // Ids as the database gave them (a Galera cluster's step by its size).
    const opalId = await t.lastId('marbles');
    const emailId = await t.lastId('emails');
    const opal = await t.http().get(`/api/demo/marbles/${opalId}`);
    const phone = await t.http().get('/api/demo/phone_numbers/1');
    const email = await t.http().get(`/api/demo/emails/${emailId}`);
    expect(res.body).toEqual({
      results: [
        {
          status: 201,
          record: { ...opal.body, price: null, updated_at: expect.any(String) },
          etag: `"${opalId}.1"`,
        },
        { status: 200, message: 'Price updated to 12.5.' },
        { status: 200, record: phone.body, etag: phone.headers.etag },
        { status: 201, record: email.body, etag: email.headers.etag },
        { status: 200, message: 'Is discounted toggled to true.' },
        { status: 204 },
      ],
    });
    expect(opal.body).toMatchObject({
      id: opalId,
      name: 'Opal',
      price: '12.5',
      user: { id: 2, login: 'bob' },
    });
    expect(opal.headers.etag).toBe(`"${opalId}.2"`);
    expect(phone.body).toEqual({ id: 1, number: '555-0100', user: { id: 2, login: 'bob' } });
    expect((await t.http().get('/api/demo/marbles/7')).body.is_discounted).toBe(true);
    expect((await t.http().get('/api/demo/marbles/8')).status).toBe(404);
  });

  it('should take XML: <operations type="array"> of <operation> elements', async () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><operations type="array">' +
      '<operation><op>create</op><collection>marbles</collection><ref>m</ref>' +
      '<record><name>Opal</name><radius-mm type="integer">4</radius-mm></record></operation>' +
      '<operation><op>update</op><collection>marbles</collection><id><ref>m</ref></id>' +
      '<record><description>from XML</description></record></operation>' +
      '<operation><op>destroy</op><collection>emails</collection><id type="integer">2</id></operation>' +
      '</operations>';
    const res = await t
      .http()
      .post('/api/operations')
      .set('Content-Type', 'application/xml')
      .set('Accept', 'application/xml')
      .send(xml);

    expectXml(res, 200);
    expect(res.text).toContain('<results type="array"><result><status type="integer">201</status>');
    const opalId = await t.lastId('marbles');
    expect(res.text).toContain(`<etag>"${opalId}.2"</etag>`);
    expect(res.text).toContain('<result><status type="integer">204</status></result></results>');
    const opal = await t.http().get(`/api/demo/marbles/${opalId}`);
    expect(opal.body).toMatchObject({ name: 'Opal', radius_mm: 4, description: 'from XML' });
    expect((await t.http().get('/api/demo/emails/2')).status).toBe(404);
  });

  describe('a failing operation', () => {
    it('should roll every operation back and answer its 404, naming it', async () => {
      const before = await snapshot();
      const res = await post({
        operations: [
          { op: 'create', collection: 'marbles', record: { name: 'Opal' } },
          { op: 'update', collection: 'phone_numbers', id: 1, record: { number: '555-0199' } },
          { op: 'update', collection: 'marbles', id: 99, record: { name: 'Gone' } },
        ],
      });

      expectJson(res, 404);
      expect(res.body).toEqual({
        message: 'Operation 3 (update marbles 99): Marble 99 not found.',
        operation: 3,
      });
      expect(await snapshot()).toEqual(before);
    });

    it('should answer a validation failure as its route does (400, every field), naming it', async () => {
      const before = await snapshot();
      const res = await post({
        operations: [
          { op: 'destroy', collection: 'marbles', id: 8 },
          { op: 'create', collection: 'emails', record: { email: 'not an address', user_id: 99 } },
        ],
      });

      expectJson(res, 400);
      const own = await t
        .http()
        .post('/api/demo/emails')
        .send({ email: 'not an address', user_id: 99 });
      expect(res.body).toEqual({
        message: `Operation 2 (create emails): ${own.body.message}`,
        operation: 2,
        errors: own.body.errors,
      });
      expect(await snapshot()).toEqual(before);
    });

    it('should see the earlier operations of the request: a unique value they took is a 400', async () => {
      const res = await post({
        operations: [
          { op: 'create', collection: 'marbles', record: { name: 'Opal' } },
          { op: 'create', collection: 'marbles', record: { name: 'Opal' } },
        ],
      });

      expectJson(res, 400);
      expect(res.body).toEqual({
        message: 'Operation 2 (create marbles): Validation failed; nothing was saved.',
        operation: 2,
        errors: { name: ['A marble with this name already exists.'] },
      });
      expect(await t.ids('marbles')).toEqual([7, 8]);
    });

    it('should answer 412 for an if_match that does not hold, and run one that does', async () => {
      const tag = (await t.http().get('/api/demo/marbles/7')).headers.etag as string;
      const [id, version] = tag.slice(1, -1).split('.').map(Number);
      const next = `"${id}.${version + 1}"`;
      const stale = await post({
        operations: [
          { op: 'toggle_is_discounted', collection: 'marbles', id: 7, if_match: tag },
          { op: 'update', collection: 'marbles', id: 7, if_match: tag, record: { radius_mm: 2 } },
        ],
      });
      expectJson(stale, 412);
      expect(stale.body).toMatchObject({ operation: 2 });
      expect(stale.body.message).toMatch(/^Operation 2 \(update marbles 7\): Marble 7 /);
      expect((await t.stored('marbles'))[0]).toEqual(AMBER);

      const fresh = await post({
        operations: [
          { op: 'toggle_is_discounted', collection: 'marbles', id: 7, if_match: tag },
          { op: 'update', collection: 'marbles', id: 7, if_match: next, record: { radius_mm: 2 } },
        ],
      });
      expectJson(fresh, 200);
      expect(fresh.body.results[1]).toMatchObject({ status: 200, etag: `"${id}.${version + 2}"` });
    });
  });

  describe('refusals before anything runs', () => {
    it.each([
      [
        'not an object',
        [],
        'The body must be {"operations": [...]}: a list of operations, each {op, collection, ...}.',
      ],
      [
        'no list',
        { operations: 'x' },
        'The body must be {"operations": [...]}: a list of operations, each {op, collection, ...}.',
      ],
      ['an empty list', { operations: [] }, 'The list of operations is empty: send at least one.'],
    ])('should refuse %s', async (_, body, message) => {
      const res = await post(body);
      expectJson(res, 400);
      expect(res.body).toEqual({ message });
    });

    it('should name every problem of the shape by its place counted from 1', async () => {
      const before = await snapshot();
      const res = await post({
        operations: [
          { op: 'create', collection: 'marbles', ref: 'a', record: { name: 'Opal' } },
          { op: 'explode', collection: 'marbles', id: 7 },
          { op: 'create', collection: 'widgets', record: {} },
          { op: 'update', collection: 'marbles', record: { name: 'x' } },
          { op: 'create', collection: 'marbles', ref: 'a', record: { name: 'Pearl' } },
          { op: 'destroy', collection: 'emails', id: { ref: 'b' } },
          {
            op: 'create',
            collection: 'emails',
            ref: 'b',
            record: { email: 'c@example.com', user_id: 1 },
          },
          { op: 'destroy', collection: 'emails', id: { ref: 'a' } },
          'x',
        ],
      });

      expectJson(res, 400);
      expect(res.body).toEqual({
        message:
          'Nothing was run: operation 2 has an unknown op "explode" (known for marbles: create, update, destroy, adjust_price, toggle_is_discounted); ' +
          'operation 3 names no collection: "widgets" (known: emails, marbles, phone_numbers, movies); ' +
          'operation 4 has no id; ' +
          'operation 5 names ref "a", which operation 1 already names; ' +
          'operation 6 uses ref "b" before any create names it; ' +
          'operation 8 uses ref "a" of marbles as an id of emails; ' +
          'operation 9 is not an object.',
      });
      expect(await snapshot()).toEqual(before);
    });

    it('should refuse more than OPERATIONS_MAX operations (100)', async () => {
      const operations = Array.from({ length: 101 }, () => ({
        op: 'toggle_is_discounted',
        collection: 'marbles',
        id: 7,
      }));
      const res = await post({ operations });
      expectJson(res, 400);
      expect(res.body).toEqual({
        message: '101 operations in one request; at most 100 are accepted. Nothing was run.',
      });
      const hundred = await post({ operations: operations.slice(1) });
      expectJson(hundred, 200);
      expect(hundred.body.results).toHaveLength(100);
    });
  });

  it('should put the events in the feed in operation order, all with the request id', async () => {
    const from = String(await feedHead(t));
    const res = await post({
      operations: [
        { op: 'create', collection: 'marbles', ref: 'm', record: { name: 'Opal' } },
        { op: 'update', collection: 'phone_numbers', id: 2, record: { user_id: 1 } },
        { op: 'destroy', collection: 'marbles', id: { ref: 'm' } },
        { op: 'toggle_is_discounted', collection: 'marbles', id: 7 },
      ],
    }).set('X-Request-Id', 'atomic-1');
    expectJson(res, 200);
    const opalId = res.body.results[0].record.id as number;

    const deadline = Date.now() + 20_000;
    let events: Row[] = [];
    while (events.length < 4 && Date.now() < deadline) {
      await t.app.get(EventsRuntime).sequencer.tick();
      events = (await t.http().get(`/api/events?after=${from}`)).body.results as Row[];
    }
    expect(events.map((e) => [e.collection, e.action, e.record_id, e.request_id])).toEqual([
      ['marbles', 'created', opalId, 'atomic-1'],
      ['phone_numbers', 'updated', 2, 'atomic-1'],
      ['marbles', 'deleted', opalId, 'atomic-1'],
      ['marbles', 'updated', 7, 'atomic-1'],
    ]);
  });

  it('should run a request with an Idempotency-Key once, and replay its answer', async () => {
    const body = {
      operations: [
        { op: 'create', collection: 'marbles', record: { name: 'Opal' } },
        { op: 'toggle_is_discounted', collection: 'marbles', id: 7 },
      ],
    };
    const first = await post(body).set('Idempotency-Key', 'ops-1');
    const again = await post(body).set('Idempotency-Key', 'ops-1');

    expectJson(first, 200);
    expectJson(again, 200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await t.ids('marbles')).toHaveLength(3);
    expect((await t.http().get('/api/demo/marbles/7')).body.is_discounted).toBe(true);
    const other = await post({ operations: body.operations.slice(1) }).set(
      'Idempotency-Key',
      'ops-1',
    );
    expectJson(other, 422);
  });
});
