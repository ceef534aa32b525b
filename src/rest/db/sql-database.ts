/**
 * The database as the SQL layer sees it: a dialect, identifier quoting, plain reads and retried
 * transactions. `database.ts` implements it over TypeORM's DataSource; nothing else here queries
 * through TypeORM (`tables.ts` derives the entities, which run no query).
 */
export type Dialect = 'mysql' | 'sqlite';

export type Row = Record<string, unknown>;

export interface RunResult {
  rows: Row[];
  /** Rows an INSERT, UPDATE or DELETE changed. */
  affected: number;
  /** Id of the row an INSERT added. */
  insertId: number;
}

/** Where a replica stands, as `/health/ready` reports it. */
export interface ReplicaStatus {
  /** Its URL, password hidden. */
  url: string;
  /**
   * `ok`: replicating, within the allowed lag. `lagging`: further behind than that.
   * `not replicating`: its SQL or IO thread is stopped (it serves until the time since then
   * passes the allowed lag). `down`: it does not answer. `unknown`: not checked yet, or its
   * replication status cannot be read (the user needs REPLICATION CLIENT / REPLICA MONITOR).
   */
  state: 'ok' | 'lagging' | 'not replicating' | 'down' | 'unknown';
  /** Seconds behind the primary; for a stopped replica the bound since it was last seen replicating. */
  lag_seconds: number | null;
  /** Whether reads go to it now. */
  in_rotation: boolean;
  /** What went wrong, when something did. */
  error?: string;
}

/** Where one node of a Galera cluster stands, as `/health/ready` reports it (rest/db/galera.ts). */
export interface ClusterNodeStatus {
  /** `node1`, `node2`, … in the order of DATABASE_URL. */
  name: string;
  /** Its URL, password hidden. */
  url: string;
  /**
   * `synced`: reachable, Synced, in the primary component: it may take writes and reads.
   * `not synced`: reachable, but joining, donating or behind (wsrep_local_state_comment says
   * which). `non-primary`: cut off from the quorum (writes there fail with 1047). `down`: it does
   * not answer within the check's deadline. `unknown`: not checked yet.
   */
  state: 'synced' | 'not synced' | 'non-primary' | 'down' | 'unknown';
  /** wsrep_local_state_comment (Synced, Donor/Desynced, Joining, …) at the last check. */
  local_state: string | null;
  /** wsrep_cluster_status (Primary, non-Primary, Disconnected) at the last check. */
  cluster_status: string | null;
  /** Whether writes go through it now. */
  writer: boolean;
  /** Times writes moved away from it since the start. */
  failovers: number;
  /**
   * Transactions it refused for a conflict (1213: a deadlock, or a failed certification) that
   * were run again, since the start.
   */
  conflict_retries: number;
  /**
   * Keyed writes whose COMMIT got no answer from it (killed, frozen, cut off from the quorum) that
   * were run again on the next writer, their Idempotency-Key making it safe, since the start.
   */
  keyed_reruns: number;
  /** What went wrong, when something did. */
  error?: string;
}

/** A Galera cluster as this process sees it: its nodes, and the one writes go through. */
export interface ClusterStatus {
  /** The writer's name, or null while no node may take writes. */
  writer: string | null;
  nodes: ClusterNodeStatus[];
}

/**
 * The most one transaction may write, as a Galera cluster limits its write-sets
 * (`wsrep_max_ws_rows`, `wsrep_max_ws_size`): rows inserted, updated or deleted, and bytes; 0 for
 * no limit.
 */
export interface WriteSetLimits {
  rows: number;
  bytes: number;
}

/** How one transaction may be run (transactions.ts). */
export interface TransactionOptions {
  /**
   * Its work stores under an Idempotency-Key as its last statement, so that running it again
   * after a COMMIT whose answer was lost is safe: a first run that was saved after all holds the
   * key, and the second replays its answer instead of writing again.
   */
  idempotent?: boolean;
}

/** One transaction's view of the database. */
export interface Tx {
  run(sql: string, parameters?: unknown[]): Promise<RunResult>;
  /**
   * A statement whose result nobody reads, sent with the COMMIT: on MySQL in the same round trip
   * (`INSERT ...; COMMIT`), elsewhere just before it. It commits with the transaction or not at
   * all: refused, nothing commits; its answer lost, the commit's outcome is unknown, as a lost
   * COMMIT's. For the change feed's outbox, which would otherwise cost each write a round trip.
   */
  withCommit(sql: string, parameters?: unknown[]): void;
  /**
   * `callback` is called once this transaction has committed (the unit of work's, when the
   * transaction joined one), after its connection went back: not after a rollback, nor when
   * the commit's outcome is unknown. A callback's error is not the write's: it is ignored.
   */
  afterCommit(callback: () => void): void;
}

export abstract class SqlDatabase {
  abstract readonly dialect: Dialect;

  /** `name` quoted as an identifier. */
  abstract quote(name: string): string;

  /** One read statement outside any transaction. */
  abstract query(sql: string, parameters?: unknown[]): Promise<Row[]>;

  /**
   * One write statement that commits by itself (no START TRANSACTION / COMMIT round trips where
   * the database allows it), retried like `transaction`; inside a unit of work it joins it.
   */
  abstract write(sql: string, parameters?: unknown[]): Promise<RunResult>;

  /** `work` in one transaction, retried from the start on a deadlock or a duplicate key. */
  abstract transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;

  /** The read replicas and where each stands (rest/db/replicas.ts), where there are any. */
  replicaStatuses?(): ReplicaStatus[];

  /** The Galera cluster's nodes and writer (rest/db/galera.ts), where DATABASE_URL names one. */
  clusterStatus?(): ClusterStatus | undefined;

  /** The cluster's limits on one transaction's writes, where it has any (a Galera cluster). */
  writeSetLimits?(): WriteSetLimits | undefined;

  /**
   * `work` in one transaction that every `query` and `transaction` it makes (in its async
   * context) joins: its writes and whatever it stores alongside commit together or not at all.
   * Retried from the start like `transaction`; `idempotent` (its last statement stores under an
   * Idempotency-Key) lets a cluster run it again on the next writer after a COMMIT whose answer
   * was lost (transactions.ts).
   */
  abstract unitOfWork<T>(work: () => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/**
 * How many rows a transaction of `db` may change in a batch of its own (the change feed's
 * sequencer, purges), `own` at most: with a cluster's row limit, that limit less `others` rows
 * the same transaction changes besides the batch.
 */
export function batchWithin(db: SqlDatabase, own: number, others = 0): number {
  const rows = db.writeSetLimits?.()?.rows ?? 0;
  return rows > 0 ? Math.max(1, Math.min(own, rows - others)) : own;
}

/** Which pool a statement ran on, and whether it was a plain read or part of a transaction. */
export type StatementKind = 'read' | 'write';

/**
 * Watches statements (metrics, traces, debug logs): called as a statement starts, with its SQL,
 * kind and pool name; the function it returns is called once as the statement ends, with the
 * error if it failed. Under this token, an application may provide one (optional).
 */
export type SqlObserver = (
  sql: string,
  kind: StatementKind,
  pool: string,
) => (error?: unknown) => void;

export const SQL_OBSERVER = Symbol('SQL_OBSERVER');
