/**
 * Starting on a Galera cluster: the schema lock is the cluster's, not a node's (two instances
 * migrating through different nodes take turns), and an instance that finds no node in the
 * primary component (1047: two of the three nodes killed) waits for one, saying so once, and
 * starts when quorum returns.
 *
 * Needs mariadb-server, galera-4 and rsync; `npm test` runs this folder only where they are
 * installed.
 */
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { GaleraCluster, startCluster } from '../../../scripts/galera-cluster';
import { underSchemaLock } from '../../../src/database/migrate';
import { scratchDir, ServerProcess, startServer, waitFor } from '../support/process';

/**
 * Ports 24280-24292 (GALERA_START_PORT_BASE moves them), beside the other Galera suites': the
 * cluster's twelve, then the service's.
 */
const PORT_BASE = Number(process.env.GALERA_START_PORT_BASE ?? '24280');
/** How long each instance holds the lock in the first test. */
const HOLD_MS = 1500;

/** A DataSource that migrates through `first`, the other nodes as TypeORM's replicas. */
function throughNode(cluster: GaleraCluster, first: number): Promise<DataSource> {
  const urls = cluster.nodes.map((node) => node.url());
  return new DataSource({
    type: 'mysql',
    replication: {
      master: { url: urls[first] },
      slaves: urls.filter((_, i) => i !== first).map((url) => ({ url })),
    },
  }).initialize();
}

describe('starting on a Galera cluster', () => {
  let cluster: GaleraCluster;
  let service: ServerProcess | undefined;

  beforeAll(async () => {
    cluster = await startCluster(join(scratchDir('records-galera-'), 'cluster'), {
      basePort: PORT_BASE,
    });
  }, 180_000);

  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
    await cluster?.stop();
  });

  it('should let one instance hold the schema lock at a time, whichever node each migrates through', async () => {
    const sources = await Promise.all([throughNode(cluster, 0), throughNode(cluster, 1)]);
    try {
      // A node's own named lock: both nodes grant it at once (why the schema lock is not one).
      const [a, b] = await Promise.all(
        sources.map((s) => s.query("SELECT GET_LOCK('records.test', 0) AS got")),
      );
      expect([Number(a[0].got), Number(b[0].got)]).toEqual([1, 1]);
      await Promise.all(sources.map((s) => s.query("SELECT RELEASE_LOCK('records.test')")));

      const held: { from: number; to: number }[] = [];
      await Promise.all(
        sources.map((source) =>
          underSchemaLock(source, async () => {
            const from = Date.now();
            await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
            held.push({ from, to: Date.now() });
          }),
        ),
      );
      held.sort((x, y) => x.from - y.from);
      expect(held).toHaveLength(2);
      expect(held[1].from).toBeGreaterThanOrEqual(held[0].to);
    } finally {
      await Promise.all(sources.map((s) => s.destroy()));
    }
  }, 60_000);

  it('should wait for the primary component at start, saying so once, and start when quorum returns', async () => {
    await Promise.all([cluster.kill(1), cluster.kill(2)]);
    await waitFor(
      async () => (await cluster.node(0).state()).cluster !== 'Primary',
      'node1 out of the primary component',
      60_000,
      100,
    );
    service = await startServer({
      PORT: String(PORT_BASE + 12),
      DATABASE_URL: cluster.url(),
      DEMO_DATA: 'false',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    });
    const waiting = () =>
      service!.jsonLines().filter((line) => line.msg.includes('primary component'));
    await waitFor(
      async () => waiting().length > 0 || service!.exit !== undefined,
      'the waiting line',
      60_000,
      100,
    );
    expect(service.exit === undefined ? '' : service.dump()).toBe('');
    expect(service.exit).toBeUndefined();

    await Promise.all([cluster.restart(1), cluster.restart(2)]);
    await service.waitReady('/health/ready', 90_000);
    expect(waiting()).toHaveLength(1);
  }, 240_000);
});
