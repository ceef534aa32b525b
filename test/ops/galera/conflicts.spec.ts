/**
 * Two instances on a three-node Galera cluster of their own, each writing through another node
 * (one given the nodes in the order 1, 2, 3, the other 2, 1, 3), changing the same records at
 * once: Galera certifies their transactions at COMMIT and refuses one of each colliding pair with
 * 1213. The service runs such a transaction again whole, so no write is answered 503 within the
 * retry budget; the retries are counted per node; every update is applied exactly once (the
 * versions count them); a bulk update is all or nothing; If-Match and Idempotency-Key hold across
 * the two nodes (checked again on each run). Last, webhooks: the instance that delivers a
 * subscription is killed while writes go through the other, which delivers on from the saved
 * position (on the cluster, the lease and the positions go through each instance's own writer).
 *
 * Needs mariadb-server, galera-4 and rsync; `npm test` runs this folder only where they are
 * installed.
 */
import { join } from 'node:path';
import { GaleraCluster, PASSWORD, startCluster, USER } from '../../../scripts/galera-cluster';
import { Receiver } from '../../e2e/webhooks/receiver';
import { scratchDir, ServerProcess, startServer } from '../support/process';
import { writesAcrossKill } from '../support/webhook-kill';
import {
  Answer as HttpAnswer,
  bearer,
  call as callJson,
  clusterView,
  json,
} from '../support/answers';

const TOKEN = 'galera-conflicts-metrics-token';
/**
 * Ports 24220-24233: the cluster's twelve, then the two instances' (beside the failover suite's
 * 24200-24213; GALERA_CONFLICT_PORT_BASE moves them).
 */
const PORT_BASE = Number(process.env.GALERA_CONFLICT_PORT_BASE ?? '24220');
/** Concurrent writers per instance, and the writes each sends per scenario. */
const WRITERS = 4;
const WRITES = 12;

/** Its answers' bodies may be arrays (bulk writes answer objects with `records`, reads too). */
type Answer = HttpAnswer<Record<string, unknown> | Record<string, unknown>[]>;
const call = (url: string, init: RequestInit = {}) => callJson<Answer['body']>(url, init);

/** What this suite measured, printed at the end. */
const figures: Record<string, unknown> = {};

describe('a Galera cluster: concurrent writes through two nodes are run again, not refused', () => {
  let cluster: GaleraCluster;
  /** Writes through node1 (the list 1, 2, 3), and through node2 (the list 2, 1, 3). */
  let first: ServerProcess;
  let second: ServerProcess;
  const services = () => [first, second];

  /** The URL of the node an instance writes through (each names the nodes in its own order). */
  const writerOf = async (service: ServerProcess) =>
    (await clusterView(service, TOKEN)).nodes?.find((n) => n.writer)?.url;

  /** Conflict retries per node, summed over both instances. */
  const conflictRetries = async () => {
    const counts: Record<string, number> = {};
    for (const service of services()) {
      const { text } = await callJson(service.url('/metrics'), bearer(TOKEN));
      for (const [, node, n] of text.matchAll(
        /^db_cluster_conflict_retries_total\{node="(node\d)"\} (\d+)$/gm,
      )) {
        counts[node] = (counts[node] ?? 0) + Number(n);
      }
    }
    return counts;
  };
  const total = (counts: Record<string, number>) =>
    Object.values(counts).reduce((sum, n) => sum + n, 0);

  /** `write(service, n)` from WRITERS loops per instance at once; every answer's status. */
  const together = async (write: (service: ServerProcess, n: number) => Promise<Answer>) => {
    const statuses: number[] = [];
    await Promise.all(
      services().flatMap((service) =>
        Array.from({ length: WRITERS }, async () => {
          for (let n = 0; n < WRITES; n++) statuses.push((await write(service, n)).status);
        }),
      ),
    );
    return statuses;
  };

  const versions = async (ids: number[]) => {
    // Node1 waits until it applied every write certified before the read (node2's too).
    const rows = await cluster.nodes[0].query<{ id: number; version: number; price: string }>(
      'SET STATEMENT wsrep_sync_wait = 1 FOR SELECT id, version, price FROM records.marbles ' +
        `WHERE id IN (${ids.map(() => '?').join(',')}) ORDER BY id`,
      ids,
    );
    return rows.map((r) => ({ id: Number(r.id), version: Number(r.version), price: r.price }));
  };

  beforeAll(async () => {
    const root = scratchDir('records-galera-conflicts-');
    cluster = await startCluster(join(root, 'cluster'), { basePort: PORT_BASE });
    const env = {
      DEMO_DATA: 'true',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      METRICS_TOKEN: TOKEN,
      // The webhooks' test: a receiver on loopback, the routes open (no token).
      WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    first = await startServer({
      ...env,
      PORT: String(PORT_BASE + 12),
      DATABASE_URL: cluster.url(),
    });
    await first.waitReady('/health/ready', 90_000);
    const [n1, n2, n3] = cluster.nodes.map((n) => n.address);
    second = await startServer({
      ...env,
      PORT: String(PORT_BASE + 13),
      DATABASE_URL: `mysql://${USER}:${PASSWORD}@${n2},${n1},${n3}/${cluster.database}`,
    });
    await second.waitReady('/health/ready', 90_000);
  });

  afterAll(async () => {
    console.log(`galera conflict figures: ${JSON.stringify(figures, null, 2)}`);
    for (const service of [first, second]) {
      service?.child.kill('SIGTERM');
      await service?.exited;
    }
    await cluster?.stop();
  });

  it('should write through another node from each instance', async () => {
    expect([await writerOf(first), await writerOf(second)]).toEqual(
      [0, 1].map((i) => `mysql://${USER}:***@${cluster.nodes[i].address}/${cluster.database}`),
    );
  });

  it('should apply every concurrent change of one record once, none answered 503', async () => {
    const [{ id }] = await cluster.nodes[0].query<{ id: number }>(
      'SELECT id FROM records.marbles ORDER BY id LIMIT 1',
    );
    const [before] = await versions([Number(id)]);
    const statuses = await together((service, n) =>
      n % 2 === 0
        ? call(service.url(`/api/demo/marbles/${id}`), json('PATCH', { price: `${n + 1}.25` }))
        : call(
            service.url(`/api/demo/marbles/${id}/adjust_price`),
            json('PATCH', { price: `${n + 1}.75` }),
          ),
    );
    const retries = await conflictRetries();
    figures.oneRecord = { writes: statuses.length, conflictRetries: retries };
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // Each acknowledged change moved the version once: none lost, none applied twice.
    const [after] = await versions([Number(id)]);
    expect(after.version - before.version).toBe(statuses.length);
    // The two nodes' writers did collide, and the collisions were run again.
    expect(total(retries)).toBeGreaterThan(0);
  });

  it('should run a whole operations request again on a conflict: each applied once, none 503', async () => {
    const rows = await cluster.nodes[0].query<{ id: number }>(
      'SELECT id FROM records.marbles ORDER BY id LIMIT 2 OFFSET 10',
    );
    const ids = rows.map((r) => Number(r.id));
    const before = await versions(ids);
    const retriesBefore = total(await conflictRetries());
    // Both records in each request, in turns of order: the two nodes' transactions collide.
    const statuses = await together((service, n) =>
      call(
        service.url('/api/operations'),
        json('POST', {
          operations: (n % 2 === 0 ? ids : [...ids].reverse()).map((id, i) => ({
            op: i === 0 ? 'adjust_price' : 'update',
            collection: 'marbles',
            id,
            record: { price: `${n + 1}.5${i}` },
          })),
        }),
      ),
    );
    const retries = await conflictRetries();
    figures.operations = { requests: statuses.length, conflictRetries: retries };
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // Every request moved each of its two records once: none lost, none applied twice.
    const after = await versions(ids);
    expect(after.map((a, i) => a.version - before[i].version)).toEqual(
      ids.map(() => statuses.length),
    );
    expect(total(retries)).toBeGreaterThan(retriesBefore);
  });

  it('should keep each concurrent bulk update all or nothing', async () => {
    const rows = await cluster.nodes[0].query<{ id: number }>(
      'SELECT id FROM records.marbles ORDER BY id DESC LIMIT 5',
    );
    const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    const before = await versions(ids);
    const answers: Answer[] = [];
    const statuses = await together(async (service) => {
      const price = `${1 + Math.floor(Math.random() * 90)}.${10 + Math.floor(Math.random() * 90)}`;
      const answer = await call(
        service.url('/api/demo/marbles'),
        json(
          'PATCH',
          ids.map((id) => ({ id, price })),
        ),
      );
      answers.push(answer);
      return answer;
    });
    const retries = await conflictRetries();
    figures.bulk = { writes: statuses.length, conflictRetriesSoFar: retries };
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // Each answer shows its own price on every record it changed.
    for (const answer of answers) {
      const records = (answer.body as { records?: { price: string }[] }).records ?? [];
      expect(records).toHaveLength(ids.length);
      expect(new Set(records.map((r) => r.price)).size).toBe(1);
    }
    // Every record changed by every bulk update, once; all five end with one bulk's price.
    const after = await versions(ids);
    expect(after.map((r, i) => r.version - before[i].version)).toEqual(
      ids.map(() => statuses.length),
    );
    expect(new Set(after.map((r) => r.price)).size).toBe(1);
  });

  it('should let one of two writes with the same If-Match through, and refuse the other (412)', async () => {
    const [{ id }] = await cluster.nodes[0].query<{ id: number }>(
      'SELECT id FROM records.marbles ORDER BY id LIMIT 1 OFFSET 1',
    );
    const outcomes: number[][] = [];
    for (let round = 0; round < 10; round++) {
      const read = await call(first.url(`/api/demo/marbles/${id}`));
      const tag = read.headers.get('etag')!;
      const answers = await Promise.all(
        services().map((service, i) =>
          call(
            service.url(`/api/demo/marbles/${id}`),
            json('PATCH', { price: `${round + 1}.${i}0` }, { 'If-Match': tag }),
          ),
        ),
      );
      outcomes.push(answers.map((a) => a.status).sort());
    }
    expect(outcomes).toEqual(outcomes.map(() => [200, 412]));
  });

  it('should write a key sent to both instances at once once, and replay it to the other', async () => {
    for (let round = 0; round < 10; round++) {
      const key = `conflict-key-${round}`;
      const name = `Keyed twice ${round}`;
      const answers = await Promise.all(
        services().map((service) =>
          call(
            service.url('/api/demo/marbles'),
            json('POST', { name, radius_mm: 2, price: '1.5' }, { 'Idempotency-Key': key }),
          ),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual([201, 201]);
      expect(answers.map((a) => a.headers.get('idempotent-replayed') ?? 'no').sort()).toEqual([
        'no',
        'true',
      ]);
      const ids = answers.map((a) => (a.body as { id: number }).id);
      expect(ids[0]).toBe(ids[1]);
      const rows = await cluster.nodes[2].query<{ n: number }>(
        'SET STATEMENT wsrep_sync_wait = 1 FOR SELECT COUNT(*) AS n FROM records.marbles WHERE name = ?',
        [name],
      );
      expect(Number(rows[0].n)).toBe(1);
    }
    figures.conflictRetries = await conflictRetries();
  });

  // Last: it kills the first instance.
  it('should deliver webhooks on from the other instance when the delivering one is killed', async () => {
    const receiver = await Receiver.start();
    try {
      const created = await call(
        first.url('/api/webhooks'),
        json('POST', { url: receiver.url('/galera'), collections: ['marbles'] }),
      );
      expect(created.status).toBe(201);
      const subscription = created.body as { secret: string; last_event_id: string };
      receiver.secrets.push(subscription.secret);
      // Slow enough that the kill lands in the middle of the deliveries.
      receiver.answer = () => ({ status: 204, delayMs: 30 });
      const { ids, resumedAfterMs } = await writesAcrossKill(
        receiver,
        first,
        30,
        async (i) => {
          const res = await call(
            second.url('/api/demo/marbles'),
            json('POST', { name: `Hooked ${i}`, radius_mm: 2, price: '1.5' }),
          );
          expect(res.status).toBe(201);
          return (res.body as { id: number }).id;
        },
        60_000,
      );
      figures.webhookTakeoverMs = resumedAfterMs;
      expect(resumedAfterMs).toBeLessThan(30_000);
      const firsts: number[] = [];
      for (const d of receiver.deliveries) {
        expect(d.signedWith).toEqual([subscription.secret]);
        if (!firsts.includes(d.event.record_id)) firsts.push(d.event.record_id);
      }
      expect(firsts).toEqual(ids);
    } finally {
      await receiver.stop();
    }
  });
});
