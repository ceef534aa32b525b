import { DataSource, DataSourceOptions } from 'typeorm';

const LOCK = 'records.schema';
const LOCK_WAIT_SECONDS = 120;
/** How long a node of a cluster has to answer the lock's connection before it is passed over. */
const NODE_CONNECT_MS = 5000;

/** TypeORM's `replication` option, as data-source-options.ts writes it (a cluster, or replicas). */
interface Replication {
  master: { url: string };
  slaves: { url: string }[];
}

/** A connection holding the named lock, and how to let it go. */
interface Held {
  release(): Promise<void>;
}

/**
 * Runs `work` while holding a MySQL named lock, so that replicas starting at the same moment
 * migrate (and load demo data) one after another, never together. SQLite needs no lock: one
 * process owns the file's writes at a time.
 *
 * On a Galera cluster (several nodes in DATABASE_URL) a named lock is the node's own: Galera
 * does not replicate it, so two instances migrating through different nodes would both get it.
 * There the lock is taken on a majority of the nodes (`clusterLock`): any two majorities share a
 * node, so two instances never hold it at once, whichever node each migrates through.
 */
export async function underSchemaLock<T>(
  dataSource: DataSource,
  work: () => Promise<T>,
): Promise<T> {
  if (dataSource.options.type !== 'mysql') return work();
  const nodes = clusterNodes(dataSource.options);
  const held =
    nodes && (await onGalera(dataSource)) ? await clusterLock(nodes) : await nodeLock(dataSource);
  try {
    return await work();
  } finally {
    await held.release();
  }
}

/** The nodes' URLs when the options name several servers (a cluster's nodes, or replicas). */
function clusterNodes(options: DataSourceOptions): string[] | undefined {
  const { replication } = options as { replication?: Replication };
  if (!replication) return undefined;
  return [replication.master.url, ...replication.slaves.map((s) => s.url)];
}

/** Whether the server TypeORM connected to runs Galera (`wsrep_on`: replicas have it off). */
async function onGalera(dataSource: DataSource): Promise<boolean> {
  const rows: { Value?: string }[] = await dataSource.query(
    "SHOW GLOBAL VARIABLES LIKE 'wsrep_on'",
  );
  return rows[0]?.Value === 'ON';
}

/** Another instance held the lock past the wait: not retried (something is stuck). */
class SchemaLockTimeout extends Error {
  constructor() {
    super(`Another instance held the schema lock for over ${LOCK_WAIT_SECONDS} s.`);
  }
}

/** Fewer than a majority of a cluster's nodes granted the lock: the start tries again (connect.ts). */
export const SCHEMA_LOCK_NO_MAJORITY = 'SCHEMA_LOCK_NO_MAJORITY';

/** GET_LOCK on the server the DataSource writes to (one server, or a primary with replicas). */
async function nodeLock(dataSource: DataSource): Promise<Held> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const release = async () => {
    await runner.query('SELECT RELEASE_LOCK(?)', [LOCK]).catch(() => undefined);
    await runner.release();
  };
  try {
    const [{ acquired }] = await runner.query('SELECT GET_LOCK(?, ?) AS acquired', [
      LOCK,
      LOCK_WAIT_SECONDS,
    ]);
    if (Number(acquired) !== 1) throw new SchemaLockTimeout();
  } catch (error) {
    await release();
    throw error;
  }
  return { release };
}

/**
 * GET_LOCK on every node that answers, one after another in the order of their addresses (the
 * same for every instance, whatever the order of its DATABASE_URL, so two instances never wait
 * for each other crosswise), on a connection of its own to each node; held once more than half
 * of the nodes granted it. A node that does not answer, or answers 1047 (not in the primary
 * component), is passed over; fewer than a majority is an error, and the start tries again
 * (src/database/connect.ts). A lock dies with its connection: an instance that dies holding it
 * holds nothing.
 */
async function clusterLock(urls: string[]): Promise<Held> {
  const mysql = await import('mysql2/promise');
  const needed = Math.floor(urls.length / 2) + 1;
  const connections: import('mysql2/promise').Connection[] = [];
  const release = async () => {
    await Promise.all(
      connections.map(async (connection) => {
        await connection.query('SELECT RELEASE_LOCK(?)', [LOCK]).catch(() => undefined);
        await connection.end().catch(() => connection.destroy());
      }),
    );
  };
  const problems: string[] = [];
  try {
    for (const url of [...urls].sort(byAddress)) {
      let connection: import('mysql2/promise').Connection;
      try {
        connection = await mysql.createConnection({ uri: url, connectTimeout: NODE_CONNECT_MS });
      } catch (error) {
        problems.push(`${addressOf(url)}: ${(error as Error).message}`);
        continue;
      }
      try {
        const [rows] = await connection.query('SELECT GET_LOCK(?, ?) AS acquired', [
          LOCK,
          LOCK_WAIT_SECONDS,
        ]);
        if (Number((rows as { acquired: unknown }[])[0]?.acquired) !== 1)
          throw new SchemaLockTimeout();
        connections.push(connection);
      } catch (error) {
        connection.destroy();
        if (error instanceof SchemaLockTimeout) throw error;
        problems.push(`${addressOf(url)}: ${(error as Error).message}`);
      }
    }
    if (connections.length < needed) {
      throw Object.assign(
        new Error(
          `The schema lock needs ${needed} of the cluster's ${urls.length} nodes; ` +
            `${connections.length} granted it (${problems.join('; ')}).`,
        ),
        { code: SCHEMA_LOCK_NO_MAJORITY },
      );
    }
  } catch (error) {
    await release();
    throw error;
  }
  return { release };
}

function addressOf(url: string): string {
  return new URL(url).host;
}

function byAddress(a: string, b: string): number {
  return addressOf(a).localeCompare(addressOf(b));
}

/** Connects and brings the schema up to date: what every process does before serving. */
export async function openDatabase(options: DataSourceOptions): Promise<DataSource> {
  const dataSource = await new DataSource(options).initialize();
  try {
    await underSchemaLock(dataSource, () => dataSource.runMigrations({ transaction: 'each' }));
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}
