import { AsyncLocalStorage } from 'node:async_hooks';
import { DatabaseDeadline } from './database-errors';
import { CheckedRotation } from './rotation';
import { ReplicaStatus, Row } from './sql-database';

export type { ReplicaStatus };

/** The part of a mysql2 connection used here: a query, given back, or destroyed. */
export interface MysqlConnection {
  query(
    sql: string,
    parameters: unknown[],
    callback: (error: Error | null, rows: Row[]) => void,
  ): void;
  release(): void;
  destroy(): void;
}

/** The part of a mysql2 pool (or PoolCluster namespace) used for reads. */
export interface MysqlPool {
  query(
    sql: string,
    parameters: unknown[],
    callback: (error: Error | null, rows: Row[]) => void,
  ): void;
  getConnection(callback: (error: Error | null, connection: MysqlConnection) => void): void;
}

/**
 * Why the reads of the code run inside `pinned.run(…)` must see the latest writes: `write`, it
 * writes itself (or must read what the primary holds); `after-write`, its client wrote moments
 * ago (the read-your-writes cookie).
 */
type Pin = 'write' | 'after-write';
const pinned = new AsyncLocalStorage<Pin>();

/** Runs `work` (and everything it starts) with every read on the primary. */
export function onPrimary<T>(work: () => T): T {
  return pinned.run('write', work);
}

/**
 * Runs `work` (a read of a client that wrote moments ago) so that its reads see that write: on
 * the primary with replicas; on a Galera cluster, on any healthy node after it caught up
 * (causal reads, database.ts).
 */
export function afterOwnWrite<T>(work: () => T): T {
  return pinned.run('after-write', work);
}

/** Whether the current request's reads must go to the primary. */
export function readsPinned(): boolean {
  return pinned.getStore() !== undefined;
}

/** Whether the current request's reads are those of a client that wrote moments ago. */
export function readsAfterOwnWrite(): boolean {
  return pinned.getStore() === 'after-write';
}

/** One replica: its pool and what the last check found. */
export class Replica {
  status: ReplicaStatus;
  /** When it was last seen replicating, and its lag then (for a replica that stopped). */
  private replicatingAt = 0;
  private lagThen = 0;

  constructor(
    readonly pool: MysqlPool,
    url: string,
  ) {
    this.status = {
      url: hidePassword(url),
      state: 'unknown',
      lag_seconds: null,
      in_rotation: false,
    };
  }

  /** Reads the replica's replication status; `maxLag` decides whether it serves. */
  async check(maxLag: number, timeoutMs: number): Promise<void> {
    let rows: Row[];
    try {
      rows = await withTimeout(query(this.pool, 'SHOW REPLICA STATUS'), timeoutMs);
    } catch (error) {
      const message = (error as Error).message;
      const denied = /denied|privilege/i.test(message);
      this.set(denied ? 'unknown' : 'down', null, maxLag, message);
      return;
    }
    if (rows.length === 0) {
      this.set('not replicating', null, maxLag, 'not a replica (SHOW REPLICA STATUS is empty)');
      return;
    }
    const row = rows[0];
    const running = (name: string) =>
      String(row[`Replica_${name}_Running`] ?? row[`Slave_${name}_Running`]) === 'Yes';
    const behind = row.Seconds_Behind_Source ?? row.Seconds_Behind_Master;
    const now = Date.now();
    if (running('IO') && running('SQL') && behind !== null && behind !== undefined) {
      const lag = Number(behind);
      this.replicatingAt = now;
      this.lagThen = lag;
      this.set(lag > maxLag ? 'lagging' : 'ok', lag, maxLag);
      return;
    }
    // Stopped: its data is no older than when it was last seen replicating, plus the lag then.
    const lag =
      this.replicatingAt > 0 ? this.lagThen + Math.floor((now - this.replicatingAt) / 1000) : null;
    const stopped = [!running('SQL') && 'SQL', !running('IO') && 'IO']
      .filter(Boolean)
      .join(' and ');
    const lastError = String(row.Last_SQL_Error || row.Last_IO_Error || '');
    this.set(
      'not replicating',
      lag,
      maxLag,
      `${stopped || 'replication'} thread not running${lastError ? `: ${lastError}` : ''}`,
    );
  }

  /** A read failed as if the server were gone: out of the rotation until a check finds it back. */
  failed(error: Error): void {
    this.status = {
      ...this.status,
      state: 'down',
      in_rotation: false,
      error: error.message,
    };
  }

  private set(
    state: ReplicaStatus['state'],
    lag: number | null,
    maxLag: number,
    error?: string,
  ): void {
    const serving =
      state === 'ok' || (state === 'not replicating' && lag !== null && lag <= maxLag);
    this.status = {
      url: this.status.url,
      state,
      lag_seconds: lag,
      in_rotation: serving,
      ...(error === undefined ? {} : { error }),
    };
  }
}

export interface ReplicaOptions {
  /** Seconds a replica may lag and still serve reads. */
  maxLag: number;
  /** Milliseconds between two checks of every replica. */
  checkEveryMs: number;
}

/**
 * The replicas of the primary and the rotation of those that may serve reads: each is checked
 * every `checkEveryMs` (SHOW REPLICA STATUS: threads running, Seconds_Behind_Master), and a read
 * that fails because the server is gone takes it out at once. Reads go round robin over the
 * rotation; with none in it, to the primary. The state is this process's own observation: every
 * instance checks for itself, and nothing here needs to be shared.
 */
export class ReplicaSet extends CheckedRotation<Replica> {
  constructor(
    readonly replicas: Replica[],
    private readonly options: ReplicaOptions,
    private readonly onChange: (replica: Replica, before: ReplicaStatus) => void = () => undefined,
  ) {
    super(options.checkEveryMs);
  }

  /** Checks every replica once, then keeps checking in the background. */
  start(): Promise<void> {
    return this.startChecking();
  }

  /** A read on `replica` failed because the server is gone. */
  failed(replica: Replica, error: Error): void {
    const before = replica.status;
    replica.failed(error);
    this.update(replica, before);
  }

  statuses(): ReplicaStatus[] {
    return this.replicas.map((r) => r.status);
  }

  async checkAll(): Promise<void> {
    await Promise.all(
      this.replicas.map(async (replica) => {
        const before = replica.status;
        await replica.check(this.options.maxLag, Math.max(this.options.checkEveryMs, 2000));
        this.update(replica, before);
      }),
    );
  }

  private update(replica: Replica, before: ReplicaStatus): void {
    if (
      before.in_rotation !== replica.status.in_rotation ||
      before.state !== replica.status.state
    ) {
      this.rotation = this.replicas.filter((r) => r.status.in_rotation);
      this.onChange(replica, before);
    }
  }
}

export function query(pool: MysqlPool, sql: string, parameters: unknown[] = []): Promise<Row[]> {
  return new Promise((resolve, reject) =>
    pool.query(sql, parameters, (error, rows) => (error ? reject(error) : resolve(rows))),
  );
}

/**
 * A read on `pool` that the service ends itself after `deadlineMs` (0: none), whether it waits
 * for a connection or for the answer: the database's own time limit cannot fire on a server that
 * is frozen. The connection of a read past its deadline is destroyed, never given back to the
 * pool (its answer may still come); a connection obtained after the deadline is given back.
 */
export function queryWithin(
  pool: MysqlPool,
  sql: string,
  parameters: unknown[],
  deadlineMs: number,
): Promise<Row[]> {
  if (deadlineMs <= 0) return query(pool, sql, parameters);
  return new Promise((resolve, reject) => {
    let over = false;
    let held: MysqlConnection | undefined;
    const timer = setTimeout(() => {
      over = true;
      held?.destroy();
      reject(new DatabaseDeadline(deadlineMs, false));
    }, deadlineMs);
    pool.getConnection((error, connection) => {
      if (over) return void connection?.release();
      if (error) {
        clearTimeout(timer);
        return reject(error);
      }
      held = connection;
      connection.query(sql, parameters, (failure, rows) => {
        if (over) return;
        clearTimeout(timer);
        connection.release();
        if (failure) reject(failure);
        else resolve(rows);
      });
    });
  });
}

/**
 * A connection of `pool` within `deadlineMs` (0: no limit), or a DatabaseDeadline; one that comes
 * after the deadline is given back.
 */
export function connectionWithin(pool: MysqlPool, deadlineMs: number): Promise<MysqlConnection> {
  return new Promise((resolve, reject) => {
    let over = false;
    const timer =
      deadlineMs > 0
        ? setTimeout(() => {
            over = true;
            reject(new DatabaseDeadline(deadlineMs, false));
          }, deadlineMs)
        : undefined;
    pool.getConnection((error, connection) => {
      if (over) return void connection?.release();
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(connection);
    });
  });
}

/**
 * `promise`, or a DatabaseDeadline after `deadlineMs` (0: none), when `onDeadline` is called to
 * destroy the connection it runs on. `committing`: the promise is a COMMIT's.
 */
export function withDeadline<T>(
  promise: Promise<T>,
  deadlineMs: number,
  onDeadline: () => void,
  committing = false,
): Promise<T> {
  if (deadlineMs <= 0) return promise;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onDeadline();
      reject(new DatabaseDeadline(deadlineMs, committing));
    }, deadlineMs);
  });
  // Settled later by the destroyed connection, or never: nobody waits for it any more.
  promise.catch(() => undefined);
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A URL with its password replaced by `***`. */
export function hidePassword(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
