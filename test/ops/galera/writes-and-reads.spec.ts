/**
 * Write-set limits and causal reads on a three-node Galera cluster of its own, whose nodes hold a
 * transaction to 40 rows (`wsrep_max_ws_rows`) and 64 KiB (`wsrep_max_ws_size`):
 * - a bulk write that would pass the row limit is refused with 413 before anything is written
 *   (a marble costs two rows, its own and its change-feed event; the request one more, an
 *   Idempotency-Key's): 19 marbles fit, 20 do not;
 * - a write the cluster refuses at COMMIT as too large (its bytes) is the same clear 413, not a
 *   500 or 503, and nothing of it is written;
 * - the change feed still positions every event (its batches fit the limit);
 * - a client reads what it was answered through another instance, writing through another node,
 *   at once, every time: by default (`CLUSTER_READS=causal`) every read off the writer is causal
 *   (`wsrep_sync_wait`) and waits on a node that has not applied the write yet; with
 *   `CLUSTER_READS=after-write` only a read with the read-your-writes cookie waits, and one
 *   without it is stale there.
 *
 * Needs mariadb-server, galera-4 and rsync; `npm test` runs this folder only where they are
 * installed.
 */
import { join } from 'node:path';
import { GaleraCluster, PASSWORD, startCluster, USER } from '../../../scripts/galera-cluster';
import { scratchDir, ServerProcess, startServer, waitFor } from '../support/process';
import { call, json } from '../support/answers';

/** Ports 24240-24251 (between the conflict and node-loss suites'; GALERA_WRITES_PORT_BASE moves them). */
const PORT_BASE = Number(process.env.GALERA_WRITES_PORT_BASE ?? '24240');
const MAX_ROWS = 40;
const MAX_BYTES = 65536;
/** Writes through one instance, each read back at once through the other. */
const ROUNDS = 60;
/** Rounds with a node that cannot apply writes for LAG_MS. */
const LAGGED_ROUNDS = 3;
const LAG_MS = 1000;

/** What this suite measured, printed at the end. */
const figures: Record<string, unknown> = {};

describe('a Galera cluster: write-sets within its limits, causal reads', () => {
  let cluster: GaleraCluster;
  /** Writes through node1 (the list 1, 2, 3), and through node3 (the list 3, 2, 1). */
  let first: ServerProcess;
  let second: ServerProcess;
  /** As `second`, with CLUSTER_READS=after-write: only the cookie's reads are causal. */
  let loose: ServerProcess;

  const marbles = (service: ServerProcess, path = '') => service.url(`/api/demo/marbles${path}`);

  /** Marbles whose name starts with `prefix`, as the cluster holds them (node1, caught up). */
  const stored = async (prefix: string) => {
    const rows = await cluster.nodes[0].query<{ id: number; version: number }>(
      'SET STATEMENT wsrep_sync_wait = 1 FOR SELECT id, version FROM records.marbles ' +
        'WHERE name LIKE ? ORDER BY id',
      [`${prefix}%`],
    );
    return rows.map((r) => ({ id: Number(r.id), version: Number(r.version) }));
  };

  const named = (prefix: string, n: number, extra: Record<string, unknown> = {}) =>
    Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, price: '1.50', ...extra }));

  beforeAll(async () => {
    const root = scratchDir('records-galera-writes-');
    cluster = await startCluster(join(root, 'cluster'), {
      basePort: PORT_BASE,
      serverOptions: [`wsrep-max-ws-rows=${MAX_ROWS}`, `wsrep-max-ws-size=${MAX_BYTES}`],
    });
    const env = { DEMO_DATA: 'false', LOG_LEVEL: 'info', LOG_FORMAT: 'json' };
    first = await startServer({ ...env, DATABASE_URL: cluster.url() });
    await first.waitReady('/health/ready', 90_000);
    const [n1, n2, n3] = cluster.nodes.map((n) => n.address);
    const reversed = `mysql://${USER}:${PASSWORD}@${n3},${n2},${n1}/${cluster.database}`;
    second = await startServer({ ...env, DATABASE_URL: reversed });
    loose = await startServer({ ...env, DATABASE_URL: reversed, CLUSTER_READS: 'after-write' });
    await second.waitReady('/health/ready', 90_000);
    await loose.waitReady('/health/ready', 90_000);
  });

  afterAll(async () => {
    console.log(`galera writes-and-reads figures: ${JSON.stringify(figures, null, 2)}`);
    for (const service of [first, second, loose]) {
      service?.child.kill('SIGTERM');
      await service?.exited;
    }
    await cluster?.stop();
  });

  it('should refuse a bulk write past wsrep_max_ws_rows with 413 before writing anything', async () => {
    const over = await call(
      marbles(first),
      json('POST', named('over-', 20), { 'Idempotency-Key': 'bulk-over-the-limit' }),
    );
    expect({ status: over.status, body: over.body }).toEqual({
      status: 413,
      body: {
        message:
          'Bulk create of 20 marbles writes 41 rows in one transaction, more than this database ' +
          `cluster accepts (wsrep_max_ws_rows = ${MAX_ROWS}): send at most 19 at a time. ` +
          'Nothing was saved.',
      },
    });
    expect(await stored('over-')).toEqual([]);

    const fits = await call(
      marbles(first),
      json('POST', named('fits-', 19), { 'Idempotency-Key': 'bulk-within-the-limit' }),
    );
    expect(fits.status).toBe(201);
    expect((fits.body.records as unknown[]).length).toBe(19);
    const one = await call(marbles(first), json('POST', { name: 'fits-19', price: '1.50' }));
    expect(one.status).toBe(201);
    const before = await stored('fits-');
    expect(before).toHaveLength(20);

    const update = await call(
      marbles(second),
      json(
        'PATCH',
        before.map(({ id }) => ({ id, price: '2.50' })),
      ),
    );
    expect({ status: update.status, message: update.body.message }).toEqual({
      status: 413,
      message:
        'Bulk update of 20 marbles writes 41 rows in one transaction, more than this database ' +
        `cluster accepts (wsrep_max_ws_rows = ${MAX_ROWS}): send at most 19 at a time. ` +
        'Nothing was saved.',
    });
    const destroy = await call(
      marbles(second),
      json(
        'DELETE',
        before.map(({ id }) => id),
      ),
    );
    expect(destroy.status).toBe(413);
    expect(destroy.body.message).toMatch(/^Bulk destroy of 20 marbles writes 41 rows/);
    // Nothing changed, nothing deleted.
    expect(await stored('fits-')).toEqual(before);

    const within = await call(
      marbles(second),
      json(
        'PATCH',
        before.slice(0, 19).map(({ id }) => ({ id, price: '2.50' })),
      ),
    );
    expect(within.status).toBe(200);
  });

  it('should answer 413 when the cluster refuses a write-set at COMMIT (wsrep_max_ws_size), nothing written', async () => {
    // 8 × 10,000 characters: within the body limit and the row limit, past 64 KiB of write-set.
    const big = named('big-', 8, { description: 'x'.repeat(10_000) });
    const answer = await call(marbles(first), json('POST', big));
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 413,
      body: {
        message:
          'This write is larger than the database cluster accepts in one transaction (its ' +
          'write-set limits, wsrep_max_ws_rows and wsrep_max_ws_size); nothing was saved. Send ' +
          'fewer items at a time.',
      },
    });
    expect(await stored('big-')).toEqual([]);
    // The writer was not taken for a gone node: the next write passes through it.
    const next = await call(marbles(first), json('POST', { name: 'after-big', price: '1.50' }));
    expect(next.status).toBe(201);
  });

  it('should give every event of writes at the row limit its position (the feed batches within it)', async () => {
    for (const batch of ['feed-a-', 'feed-b-', 'feed-c-']) {
      expect((await call(marbles(first), json('POST', named(batch, 19)))).status).toBe(201);
    }
    const ids = (await stored('feed-')).map((r) => r.id);
    expect(ids).toHaveLength(57);
    let seen = new Set<number>();
    await waitFor(async () => {
      const page = await call(marbles(first, '/events?after=0&limit=1000'));
      const results = page.body.results as { record_id: number }[];
      seen = new Set(results.map((e) => Number(e.record_id)));
      return ids.every((id) => seen.has(id));
    }, 'every event positioned');
    expect(ids.filter((id) => !seen.has(id))).toEqual([]);
  });

  it('should read a write on a node that has not applied it yet (it waits: causal reads)', async () => {
    const created = await call(marbles(first), json('POST', { name: 'lagging', price: '1.00' }));
    const id = Number(created.body.id);
    const stale: string[] = [];
    const wrong: unknown[] = [];
    for (let round = 0; round < LAGGED_ROUNDS; round++) {
      // node2 and node3 (the second instance's writer) hold the marbles table: they receive the
      // first instance's writes but cannot apply them, and stay Synced.
      const locks = await Promise.all([1, 2].map((i) => cluster.nodes[i].connect()));
      for (const lock of locks) await lock.query('LOCK TABLES records.marbles READ');
      const price = `${20 + round}.75`;
      const write = await call(marbles(first, `/${id}`), json('PATCH', { price }));
      expect(write.status).toBe(200);
      const cookie = write.headers.get('set-cookie')!.split(';')[0];
      // CLUSTER_READS=after-write, without the cookie: reads go round the three nodes, and
      // node2's and node3's are the old price.
      for (let n = 0; n < 6; n++) {
        const plain = await call(marbles(loose, `/${id}`));
        if (plain.body.price !== price) stale.push(String(plain.body.price));
      }
      const released = new Promise<void>((resolve) =>
        setTimeout(
          () => void Promise.all(locks.map((l) => l.query('UNLOCK TABLES'))).then(() => resolve()),
          LAG_MS,
        ),
      );
      // With it, a read waits until its node has applied the write (on the writer too); and by
      // default (CLUSTER_READS=causal) every read does, cookie or not.
      for (let n = 0; n < 3; n++) {
        const own = await call(marbles(loose, `/${id}`), { headers: { Cookie: cookie } });
        if (own.status !== 200 || own.body.price !== price) wrong.push({ round, n, own: own.body });
        const any = await call(marbles(second, `/${id}`));
        if (any.status !== 200 || any.body.price !== price) wrong.push({ round, n, any: any.body });
      }
      await released;
      for (const lock of locks) lock.destroy();
    }
    figures.lagging = { rounds: LAGGED_ROUNDS, staleWithoutCookie: stale.length, wrong };
    expect(wrong).toEqual([]);
    // The old price was there to be read: the cookie's reads did not just happen to be late.
    expect(stale.length).toBeGreaterThanOrEqual(2 * LAGGED_ROUNDS);
  });

  it("should read a client's own write through another instance and node at once, every time (causal reads)", async () => {
    const created = await call(marbles(first), json('POST', { name: 'causal', price: '1.00' }));
    expect(created.status).toBe(201);
    const id = Number(created.body.id);
    let staleWithout = 0;
    let readsWithout = 0;
    const wrong: unknown[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const price = `${10 + round}.25`;
      const write = await call(marbles(first, `/${id}`), json('PATCH', { price }));
      expect(write.status).toBe(200);
      const cookie = write.headers.get('set-cookie')!.split(';')[0];
      if (round % 2 === 1) {
        // CLUSTER_READS=after-write, without the cookie: a node may not have applied it yet
        // (counted, not asserted); by default, never (asserted).
        const plain = await call(marbles(loose, `/${id}`));
        readsWithout++;
        if (plain.body.price !== price) staleWithout++;
        const any = await call(marbles(second, `/${id}`));
        if (any.status !== 200 || any.body.price !== price)
          wrong.push({ round, price, any: any.body });
      }
      const own = await call(marbles(second, `/${id}`), { headers: { Cookie: cookie } });
      if (own.status !== 200 || own.body.price !== price)
        wrong.push({ round, price, own: own.body });
      // A record created through the first instance is there for the second at once.
      const made = await call(marbles(first), json('POST', { name: `causal-${round}` }));
      const madeCookie = made.headers.get('set-cookie')!.split(';')[0];
      const found = await call(marbles(second, `/${made.body.id}`), {
        headers: { Cookie: madeCookie },
      });
      if (found.status !== 200) wrong.push({ round, created: made.body.id, status: found.status });
    }
    figures.causal = { rounds: ROUNDS, wrong: wrong.length, staleWithout, readsWithout };
    expect(wrong).toEqual([]);
  });
});
