/**
 * Atomic operations under access control and rate limits (CONTRACT §14, §15): the token needs
 * the write scope of every collection the request touches (403 naming the first missing, nothing
 * runs); RATE_LIMIT_WRITES counts one write per operation; a deadlock (as a Galera certification
 * conflict) runs the whole request again, its refs resolved anew.
 */
import { SqlDatabase, TransactionRunner, writeContext } from '../../sources';
import { bearer, useTokenApp } from '../auth/oidc';
import { TWO_PHONES, USERS, marbleRow } from '../support/fixtures';
import { useApp } from '../support/harness';
import { expectJson } from '../support/http';

const DAY = 86_400;
const SEED = { users: USERS, marbles: [marbleRow(7, 'Amber')], phone_numbers: TWO_PHONES };
const TWO_COLLECTIONS = {
  operations: [
    { op: 'create', collection: 'marbles', record: { name: 'Opal' } },
    { op: 'update', collection: 'phone_numbers', id: 1, record: { user_id: 2 } },
  ],
};

describe('atomic operations: scopes and rate limits', () => {
  const { oidc, t } = useTokenApp({
    seedEach: SEED,
    rateLimits: { writes: { limit: 5, windowSeconds: DAY } },
  });

  const post = async (scopes: string[], body: unknown, sub = 'writer') =>
    t
      .http()
      .post('/api/operations')
      .set(bearer(await oidc.provider.forge({ sub, scope: scopes.join(' ') })))
      .send(body as object);

  it('should need the write scope of every collection touched: 403 naming the first missing', async () => {
    const res = await post(['marbles:write'], TWO_COLLECTIONS, 'a');
    expectJson(res, 403);
    expect(res.body).toEqual({
      message:
        'This token does not allow writing of phone_numbers: it needs the scope phone_numbers:write or records:write.',
    });
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="records", error="insufficient_scope", ' +
        'error_description="the token lacks the scope this request needs", scope="phone_numbers:write"',
    );
    expect((await t.rows('marbles')).map((m) => m.name)).toEqual(['Amber']);

    const read = await post(['records:read'], TWO_COLLECTIONS, 'b');
    expectJson(read, 403);
    expect(read.body).toEqual({
      message: 'This token does not allow writing here: it needs the scope records:write.',
    });

    const none = await t.http().post('/api/operations').send(TWO_COLLECTIONS);
    expectJson(none, 401);

    const both = await post(['marbles:write', 'phone_numbers:write'], TWO_COLLECTIONS, 'c');
    expectJson(both, 200);
    expect((await t.rows('marbles')).map((m) => m.name)).toEqual(['Amber', 'Opal']);
  });

  it('should count one write per operation under RATE_LIMIT_WRITES', async () => {
    const toggles = (n: number) => ({
      operations: Array.from({ length: n }, () => ({
        op: 'toggle_is_discounted',
        collection: 'marbles',
        id: 7,
      })),
    });
    const four = await post(['records:write'], toggles(4), 'counted');
    expectJson(four, 200);
    expect(four.headers['ratelimit']).toMatch(/^"writes";r=1;t=\d+$/);
    const two = await post(['records:write'], toggles(2), 'counted');
    expectJson(two, 429);
    const reset = Number(/;t=(\d+)$/.exec(two.headers['ratelimit'])![1]);
    expect(two.headers['retry-after']).toBe(String(reset));
    expect(two.body).toEqual({
      message: `Too many writes: this client may send 5 every ${DAY} s (each operation of a request counts); try again in ${reset} s.`,
    });
    // Seeded at version 1: the four toggles of the first request, none of the second.
    expect(Number((await t.rows('marbles'))[0].version)).toBe(5);
  });
});

describe('atomic operations: a conflict runs the whole request again', () => {
  const t = useApp({ seedEach: SEED });

  it('should run every operation again after a deadlock, the refs resolved anew, and commit once', async () => {
    const runner = (t.app.get(SqlDatabase) as unknown as { transactions: TransactionRunner })
      .transactions;
    let failed = 0;
    runner.faults = (sql) => {
      if (writeContext().requestId === null || failed > 0 || !/^UPDATE .phone_numbers./.test(sql))
        return undefined;
      failed++;
      throw Object.assign(
        new Error('Deadlock found when trying to get lock; try restarting transaction'),
        {
          code: 'ER_LOCK_DEADLOCK',
          errno: 1213,
        },
      );
    };
    try {
      const res = await t
        .http()
        .post('/api/operations')
        .send({
          operations: [
            { op: 'create', collection: 'marbles', ref: 'm', record: { name: 'Opal' } },
            { op: 'update', collection: 'phone_numbers', id: 1, record: { user_id: 2 } },
            { op: 'toggle_is_discounted', collection: 'marbles', id: { ref: 'm' } },
          ],
        });
      expectJson(res, 200);
      expect(failed).toBe(1);
      const marbles = await t.rows('marbles');
      expect(marbles.map((m) => [m.name, Boolean(Number(m.is_discounted))])).toEqual([
        ['Amber', false],
        ['Opal', true],
      ]);
      expect(res.body.results[0].record.id).toBe(marbles[1].id);
      expect((await t.rows('phone_numbers')).map((p) => p.user_id)).toEqual([2, 2]);
    } finally {
      runner.faults = undefined;
    }
  });
});

describe('atomic operations: OPERATIONS_MAX and the body limit', () => {
  const t = useApp({ seedEach: SEED, operationsMax: 2 });

  it('should refuse more operations than OPERATIONS_MAX, and a body over 1 MiB, before anything runs', async () => {
    const toggle = { op: 'toggle_is_discounted', collection: 'marbles', id: 7 };
    const three = await t
      .http()
      .post('/api/operations')
      .send({ operations: [toggle, toggle, toggle] });
    expectJson(three, 400);
    expect(three.body).toEqual({
      message: '3 operations in one request; at most 2 are accepted. Nothing was run.',
    });
    const large = await t
      .http()
      .post('/api/operations')
      .send({ operations: [{ ...toggle, record: { padding: 'x'.repeat(1024 * 1024) } }] });
    expectJson(large, 413);
    expect(Number((await t.rows('marbles'))[0].version)).toBe(1);
    expectJson(
      await t
        .http()
        .post('/api/operations')
        .send({ operations: [toggle, toggle] }),
      200,
    );
  });

  it('should answer a failing operation in XML with its place', async () => {
    const res = await t
      .http()
      .post('/api/operations')
      .set('Accept', 'application/xml')
      .send({ operations: [{ op: 'destroy', collection: 'emails', id: 99 }] });
    expect(res.status).toBe(404);
    expect(res.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<hash><message>Operation 1 (destroy emails 99): Email 99 not found.</message>' +
        '<operation type="integer">1</operation></hash>\n',
    );
  });
});
