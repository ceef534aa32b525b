import { AsyncLocalStorage } from 'node:async_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { isDatabaseUnavailable, isStatementTimeout, poolClosed } from './database-errors';
import {
  ClusterOptions,
  ClusterServers,
  clusterOf,
  FailoverListener,
  GaleraCluster,
  wsrepOn,
} from './galera';
import {
  ClusterStatus,
  Dialect,
  Row,
  RunResult,
  SQL_OBSERVER,
  SqlDatabase,
  SqlObserver,
  StatementKind,
  TransactionOptions,
  Tx,
  WriteSetLimits,
} from './sql-database';
import {
  MysqlPool,
  queryWithin,
  readsAfterOwnWrite,
  readsPinned,
  Replica,
  ReplicaOptions,
  ReplicaSet,
  ReplicaStatus,
} from './replicas';
import { MysqlSession, SqliteSessions, TransactionSession } from './transaction-sessions';
import { TransactionRunner } from './transactions';

/** mysql2's PoolCluster, which TypeORM opens instead of a pool when replicas are configured. */
interface MysqlPoolCluster {
  of(pattern: string): MysqlPool;
  /** Its servers' pools by name (not public API: `of` is the fallback). */
  _nodes?: Record<string, { pool?: MysqlPool } | undefined>;
}

/**
 * The pool of one server of the cluster. Its own pool where it can be reached: a read then costs
 * what it costs without replicas (the cluster's `of(name).query` picks the node anew each time).
 */
function poolOf(cluster: MysqlPoolCluster, name: string): MysqlPool {
  return cluster._nodes?.[name]?.pool ?? cluster.of(name);
}

/** Options of the port (RestModule.forRoot). */
export interface DatabaseOptions {
  /** Time limit of one read statement, in milliseconds (MySQL); 0 for none. */
  statementTimeoutMs: number;
  /** How replicas are checked, where TypeORM's `replication` option names some. */
  replicas?: ReplicaOptions & {
    /** Told of every change of a replica's state (for the log). */
    onChange?: (now: ReplicaStatus, before: ReplicaStatus) => void;
  };
  /**
   * With several nodes in DATABASE_URL, a Galera cluster (rest/db/galera.ts): the nodes' URLs in
   * the order given (TypeORM's `replication` option opened a pool for each), how they are checked,
   * and who hears of each move of the writes.
   */
  cluster?: ClusterOptions & { nodes: string[]; onFailover?: FailoverListener };
}

/**
 * What the service adds to the statement time limit for its own deadline on every MySQL call:
 * the server's limit, which frees the connection cleanly, fires first where the server runs.
 */
const DEADLINE_MARGIN_MS = 1000;

/**
 * `sql` (a read, perhaps with its time limit as MariaDB's `SET STATEMENT … FOR`) as a causal read
 * of a Galera node: it waits until the node has applied every write-set the cluster certified
 * before it (`wsrep_sync_wait=1`, for this statement only), then reads.
 */
function causalRead(sql: string): string {
  const prefix = 'SET STATEMENT ';
  if (sql.startsWith(prefix)) return `${prefix}wsrep_sync_wait=1, ${sql.slice(prefix.length)}`;
  return `${prefix}wsrep_sync_wait=1 FOR ${sql}`;
}

/** Prepared statements kept on SQLite's read connection (filters make many shapes of SQL). */
const STATEMENTS_KEPT = 500;

/**
 * The pools' names in metrics and traces: `primary`, and `replica0`, `replica1`, … in the order of
 * DATABASE_REPLICA_URLS (TypeORM's SLAVE0, SLAVE1, …).
 */
const PRIMARY = 'primary';

/** How many SQL texts `limitedTexts` keeps: a route's reads are a few texts each. */
const LIMITED_TEXTS = 1000;

/**
 * `limit` of each SQL text, kept once built (a flat string mysql2 scans for its placeholders): a
 * route's statements are the same few texts request after request. Past LIMITED_TEXTS (lists of
 * ids of every length, say), texts are limited afresh.
 */
function limitedTexts(limit: (sql: string) => string): (sql: string) => string {
  const texts = new Map<string, string>();
  return (sql) => {
    let limited = texts.get(sql);
    if (limited === undefined) {
      limited = limit(sql);
      if (texts.size < LIMITED_TEXTS) texts.set(sql, limited);
    }
    return limited;
  };
}

/**
 * The SQL port over the DataSource TypeORM opened: plain queries for reads, and transactions
 * (transactions.ts: how they end, and which are run again).
 *
 * SQLite through TypeORM is one connection shared by every request, so on SQLite transactions
 * run one at a time on that connection (transaction-sessions.ts), and reads go to a second,
 * read-only connection to the same file:
 * in WAL mode it sees the last committed state while a write runs, here or in another process,
 * instead of waiting for it. (An in-memory database has no second connection: there a read waits
 * while a transaction is open.) MySQL has a pool and real isolation and needs none of this.
 */
export class TypeOrmDatabase extends SqlDatabase {
  readonly dialect: Dialect;
  /** Adds the statement time limit to a read, as the server's flavour spells it. */
  private limitTime: (sql: string) => string = (sql) => sql;
  /**
   * The service's own deadline on every MySQL call (a read, each statement of a transaction, its
   * COMMIT), in milliseconds; 0 for none.
   */
  private deadlineMs = 0;
  /** Every transaction, and every statement that commits by itself. */
  readonly transactions: TransactionRunner;
  /** SQLite's connection, one transaction at a time. */
  private readonly sqliteSessions?: SqliteSessions;
  /** SQLite's read connection, and its statements by SQL text. */
  private reader?: { db: BetterSqlite3.Database; statements: Map<string, BetterSqlite3.Statement> };
  /** With read replicas: their rotation, and the primary's pool (reads that must see writes). */
  private replicas?: ReplicaSet;
  private primary?: MysqlPool;
  /** With a Galera cluster: its nodes, the writer, the reads' rotation. */
  private galera?: GaleraCluster;
  /**
   * Whether statements may go with a transaction's COMMIT (Tx.withCommit): on a MySQL server
   * that is no Galera node, known once open. Not on a Galera node even when DATABASE_URL names
   * it alone (a proxy's one address in front of a cluster, say).
   */
  private batchesCommit = false;
  /** The transaction of the unit of work a call runs in, if any. */
  private readonly ambient = new AsyncLocalStorage<Tx>();

  /** The name of each replica's pool, for the SqlObserver. */
  private readonly replicaNames = new WeakMap<Replica, string>();

  constructor(
    private readonly dataSource: DataSource,
    /** Told of every statement this port runs; none when nothing watches. */
    private readonly observe?: SqlObserver,
  ) {
    super();
    this.dialect = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
    let sessions: () => Promise<TransactionSession>;
    if (this.dialect === 'mysql') {
      // A Galera node's sessions send nothing with their COMMIT (MysqlSession says why).
      sessions = () => MysqlSession.open(this.primaryPool(), this.deadlineMs, this.batchesCommit);
    } else {
      const driver = dataSource.driver as unknown as { databaseConnection: BetterSqlite3.Database };
      const sqlite = new SqliteSessions(
        () => dataSource.createQueryRunner('master'),
        () => driver.databaseConnection,
      );
      this.sqliteSessions = sqlite;
      sessions = () => sqlite.open();
    }
    this.transactions = new TransactionRunner(sessions, undefined, observe, PRIMARY);
  }

  /**
   * The port over an initialized DataSource. On MySQL every read gets `statementTimeoutMs` as
   * its time limit: the server cancels a statement that runs longer (MariaDB's
   * `max_statement_time`, MySQL's `MAX_EXECUTION_TIME` hint), and the error frees the connection.
   * better-sqlite3 offers no way to interrupt a statement, so SQLite reads are not limited.
   *
   * A server that is frozen (or cut off) cancels nothing, so every MySQL call also has a deadline
   * of the service's own, the limit plus DEADLINE_MARGIN_MS: past it the call fails as
   * "unavailable" (503) and its connection is destroyed, so the pool opens a fresh one when the
   * server answers again.
   */
  static async open(
    dataSource: DataSource,
    options: DatabaseOptions,
    observe?: SqlObserver,
  ): Promise<TypeOrmDatabase> {
    const { statementTimeoutMs, replicas } = options;
    const database = new TypeOrmDatabase(dataSource, observe);
    if (database.dialect === 'sqlite') database.openReader();
    if (database.dialect === 'mysql' && statementTimeoutMs > 0) {
      database.deadlineMs = statementTimeoutMs + DEADLINE_MARGIN_MS;
      const [{ version }] = await dataSource.query('SELECT VERSION() AS version');
      const limit = String(version).includes('MariaDB')
        ? (
            (prefix) => (sql: string) =>
              prefix + sql
          )(`SET STATEMENT max_statement_time=${statementTimeoutMs / 1000} FOR `)
        : (
            (hint) => (sql: string) =>
              hint + sql.slice('SELECT '.length)
          )(`SELECT /*+ MAX_EXECUTION_TIME(${Math.round(statementTimeoutMs)}) */ `);
      database.limitTime = limitedTexts(limit);
    }
    const cluster = (dataSource.driver as unknown as { poolCluster?: MysqlPoolCluster })
      .poolCluster;
    if (database.dialect === 'mysql' && cluster && options.cluster) {
      const { replication } = dataSource.options as { replication: ClusterServers };
      database.galera = clusterOf((name) => poolOf(cluster, name), replication, options.cluster);
      database.transactions.retry = database.galera.retryPolicy(database.transactions.retry);
      await database.galera.start();
    } else if (database.dialect === 'mysql' && cluster) {
      await database.openReplicas(cluster, replicas ?? { maxLag: 5, checkEveryMs: 1000 });
    }
    database.batchesCommit =
      database.dialect === 'mysql' && !database.galera && !(await runsGalera(dataSource));
    return database;
  }

  /**
   * TypeORM's `replication` option opened a pool per server, named MASTER and SLAVE0, SLAVE1, …
   * in the order of the option's `slaves`. Reads outside transactions go round robin to the
   * replicas that are healthy (see replicas.ts); everything else stays on TypeORM's MASTER.
   */
  private async openReplicas(
    cluster: MysqlPoolCluster,
    options: NonNullable<DatabaseOptions['replicas']>,
  ): Promise<void> {
    const { replication } = this.dataSource.options as {
      replication: { slaves: { url?: string; host?: string }[] };
    };
    this.primary = poolOf(cluster, 'MASTER');
    const replicas = replication.slaves.map((slave, index) => {
      const replica = new Replica(poolOf(cluster, `SLAVE${index}`), slave.url ?? slave.host ?? '');
      this.replicaNames.set(replica, `replica${index}`);
      return replica;
    });
    this.replicas = new ReplicaSet(replicas, options, (replica, before) =>
      options.onChange?.(replica.status, before),
    );
    await this.replicas.start();
  }

  /** The Galera cluster as this process sees it (none without one). */
  clusterStatus(): ClusterStatus | undefined {
    return this.galera?.status();
  }

  /** The Galera cluster's write-set limits (none without one). */
  writeSetLimits(): WriteSetLimits | undefined {
    return this.galera?.limits;
  }

  /** Each replica's state (none without replicas). */
  replicaStatuses(): ReplicaStatus[] {
    return this.replicas?.statuses() ?? [];
  }

  quote(name: string): string {
    return this.dataSource.driver.escape(name);
  }

  /** Closes SQLite's read connection with the application (Nest calls this by name). */
  onApplicationShutdown(): void {
    this.replicas?.stop();
    this.galera?.stop();
    this.reader?.db.close();
    this.reader = undefined;
  }

  private openReader(): void {
    const options = this.dataSource.options as {
      database: string;
      prepareDatabase?: (db: BetterSqlite3.Database) => void;
    };
    if (options.database === ':memory:' || options.database === '') return;
    const db = new BetterSqlite3(options.database, { readonly: true, fileMustExist: true });
    options.prepareDatabase?.(db);
    this.reader = { db, statements: new Map() };
  }

  /** One read on SQLite's read connection; its prepared statements are kept, up to a bound. */
  private readSqlite(sql: string, parameters: unknown[]): Row[] {
    const { statements, db } = this.reader!;
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= STATEMENTS_KEPT) statements.clear();
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement.all(...parameters) as Row[];
  }

  /**
   * On MySQL a read goes straight to the connection pool TypeORM opened: a TypeORM query runner
   * per statement (events, logging hooks, a promise wrapper, a copy of the rows) costs more than
   * the query itself on the hot read path.
   */
  async query(sql: string, parameters: unknown[] = []): Promise<Row[]> {
    const ambient = this.ambient.getStore();
    if (ambient) return (await ambient.run(sql, parameters)).rows;
    if (this.replicas) return this.readRouted(this.replicas, sql, parameters);
    if (this.galera) return this.readClustered(this.galera, sql, parameters);
    const pool = (this.dataSource.driver as unknown as { pool?: MysqlPool }).pool;
    if (this.dialect === 'mysql' && pool) {
      const done = this.observe?.(sql, 'read', PRIMARY);
      const reading = queryWithin(pool, this.limitTime(sql), parameters, this.deadlineMs);
      if (!done) return reading;
      return reading.then(
        (rows) => (done(), rows),
        (error) => {
          done(error);
          throw error;
        },
      );
    }
    return this.observed(sql, 'read', PRIMARY, () => this.querySqlite(sql, parameters));
  }

  private async querySqlite(sql: string, parameters: unknown[]): Promise<Row[]> {
    // Only while the DataSource is open: once it is closed, reads fail like writes.
    if (this.reader && this.dataSource.isInitialized) return this.readSqlite(sql, parameters);
    await this.sqliteSessions?.idle();
    return this.dataSource.query(sql, parameters);
  }

  /** `run`, told to the SqlObserver as one statement on `pool`. */
  private async observed<T>(
    sql: string,
    kind: StatementKind,
    pool: string,
    run: () => Promise<T>,
  ): Promise<T> {
    const done = this.observe?.(sql, kind, pool);
    if (!done) return run();
    try {
      const result = await run();
      done();
      return result;
    } catch (error) {
      done(error);
      throw error;
    }
  }

  /**
   * A read with replicas: on the next replica of the rotation, unless the request's reads are
   * pinned to the primary (it writes, or its client wrote moments ago) or none is healthy. A
   * replica that fails as if it were gone leaves the rotation, and the read is run again on the
   * primary, so its request does not fail; so does one past the service's deadline (frozen). A
   * statement past the server's own time limit is not run again.
   */
  private async readRouted(replicas: ReplicaSet, sql: string, parameters: unknown[]) {
    const replica = readsPinned() ? undefined : replicas.pick();
    if (replica) {
      try {
        return await this.observed(sql, 'read', this.replicaNames.get(replica)!, () =>
          queryWithin(replica.pool, this.limitTime(sql), parameters, this.deadlineMs),
        );
      } catch (error) {
        if (!isDatabaseUnavailable(error) || isStatementTimeout(error)) throw error;
        replicas.failed(replica, error as Error);
      }
    }
    return this.observed(sql, 'read', PRIMARY, () =>
      queryWithin(this.primary!, this.limitTime(sql), parameters, this.deadlineMs),
    );
  }

  /**
   * A read on a Galera cluster: on the next healthy node, unless the request's reads are pinned
   * to the writer (it writes: the writer has its own commits) or none is healthy. With
   * `CLUSTER_READS=causal` (the default) a read on a node other than the writer is causal, so no
   * client reads an older state than one it was answered; with `after-write`, only the reads of a
   * client that wrote moments ago (the cookie) are causal: on the next healthy node too, which
   * first applies every write the cluster certified before the read (`wsrep_sync_wait`), so they
   * see that write whichever node or instance took it. A node that fails as if it were gone is
   * marked down (by its watched pool) and the read is run again on the writer, as a replica's
   * would be on the primary.
   */
  private async readClustered(cluster: GaleraCluster, sql: string, parameters: unknown[]) {
    const afterWrite = readsAfterOwnWrite();
    const node = readsPinned() && !afterWrite ? undefined : cluster.pick();
    // The writer holds its own commits; another node may not have applied them yet.
    const causal =
      afterWrite || (cluster.options.causalReads === 'causal' && node !== cluster.writer());
    const statement = causal ? causalRead(this.limitTime(sql)) : this.limitTime(sql);
    if (node) {
      try {
        return await this.observed(sql, 'read', node.name, () =>
          queryWithin(node.calls, statement, parameters, this.deadlineMs),
        );
      } catch (error) {
        if (!isDatabaseUnavailable(error) || isStatementTimeout(error)) throw error;
        if (cluster.writer() === node) throw error;
      }
    }
    const writer = cluster.writer();
    return this.observed(sql, 'read', writer.name, () =>
      queryWithin(writer.calls, statement, parameters, this.deadlineMs),
    );
  }

  /**
   * On MySQL the statement goes straight to the primary's pool in autocommit mode: one round
   * trip where a transaction takes three. SQLite runs it as a transaction of its own (queued
   * behind the others, no round trips to save).
   */
  async write(sql: string, parameters: unknown[] = []): Promise<RunResult> {
    const ambient = this.ambient.getStore();
    if (ambient) return ambient.run(sql, parameters);
    if (this.dialect === 'mysql') return this.transactions.autocommit(sql, parameters);
    return this.transaction((tx) => tx.run(sql, parameters));
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const ambient = this.ambient.getStore();
    if (ambient) return work(ambient);
    return this.transactions.transaction(work);
  }

  unitOfWork<T>(work: () => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const ambient = this.ambient.getStore();
    if (ambient) return work();
    return this.transactions.transaction((tx) => this.ambient.run(tx, work), options);
  }

  /**
   * The pool writes go to on MySQL: TypeORM's, or the cluster's MASTER with replicas; on a Galera
   * cluster, the writer's, asked anew for every transaction. The one place that chooses it.
   */
  private primaryPool(): MysqlPool {
    if (this.galera) return this.galera.writer().calls;
    const pool = this.primary ?? (this.dataSource.driver as unknown as { pool?: MysqlPool }).pool;
    // A DataSource that was closed has no pool: unavailable (503), like a pool that is closed.
    if (!pool) throw poolClosed();
    return pool;
  }
}

/**
 * The Nest provider of the port (a plain provider object, so this layer needs no Nest import):
 * the DataSource that TypeOrmModule opened, behind SqlDatabase, with the options found under
 * `optionsToken`, and the SqlObserver under SQL_OBSERVER when the application provides one.
 */
export function sqlDatabaseProvider(optionsToken: string | symbol) {
  return {
    provide: SqlDatabase,
    useFactory: (dataSource: DataSource, options: DatabaseOptions, observe?: SqlObserver) =>
      TypeOrmDatabase.open(dataSource, options, observe),
    inject: [DataSource, optionsToken, { token: SQL_OBSERVER, optional: true }],
  };
}

/**
 * Whether the server (the primary, or the first node) is a Galera node: `wsrep_on` is set on
 * MariaDB with Galera; MariaDB without it says 0, MySQL has no such variable (an error).
 */
export async function runsGalera(dataSource: DataSource): Promise<boolean> {
  try {
    const [row] = (await dataSource.query('SELECT @@wsrep_on AS wsrep')) as { wsrep: unknown }[];
    return wsrepOn(row?.wsrep);
  } catch {
    return false;
  }
}
