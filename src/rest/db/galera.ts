import {
  errorCode,
  isDatabaseUnavailable,
  isStatementTimeout,
  isWriteConflict,
  mayHaveCommitted,
} from './database-errors';
import { hidePassword, MysqlPool, queryWithin } from './replicas';
import { ClusterNodeStatus, ClusterStatus, Row, WriteSetLimits } from './sql-database';
import { CheckedRotation } from './rotation';
import { RetryPolicy } from './transactions';

export type { ClusterNodeStatus, ClusterStatus };

/** How the nodes of a cluster are watched. */
export interface ClusterOptions {
  /** Milliseconds between two checks of every node. */
  checkEveryMs: number;
  /** Milliseconds a node has to answer a check; past it (frozen, cut off) it counts as down. */
  checkTimeoutMs: number;
  /**
   * `CLUSTER_READS`: `causal`, every read on a node other than the writer first waits until that
   * node has applied every write the cluster certified (`wsrep_sync_wait`); `after-write`, only
   * the reads of a client that wrote moments ago (the read-your-writes cookie).
   */
  causalReads: 'causal' | 'after-write';
}

/** Told of each move of the writes: from which node (none at the start), to which (none left). */
export type FailoverListener = (
  from: ClusterNodeStatus | undefined,
  to: ClusterNodeStatus | undefined,
  reason: string,
) => void;

const STATUS_SQL =
  "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_status')";

/** Whether `@@wsrep_on`, as the server answers it (1, or ON), says the server is a Galera node. */
export function wsrepOn(value: unknown): boolean {
  return Number(value) === 1 || String(value).toUpperCase() === 'ON';
}

/** One node of the cluster: its pool and what the last check (or a failed call) found. */
export class GaleraNode {
  status: ClusterNodeStatus;

  /** Its pool, as the checks use it. */
  readonly pool: MysqlPool;
  /** Its pool for the service's calls, set by the cluster: errors that say the node is gone mark it down. */
  calls: MysqlPool;

  constructor(
    pool: MysqlPool,
    url: string,
    readonly name: string,
  ) {
    this.pool = pool;
    this.calls = pool;
    this.status = {
      name,
      url: hidePassword(url),
      state: 'unknown',
      local_state: null,
      cluster_status: null,
      writer: false,
      failovers: 0,
      conflict_retries: 0,
    };
  }

  /** Whether it may take writes and reads: it answers, Synced, in the primary component. */
  get healthy(): boolean {
    return this.status.state === 'synced';
  }

  /**
   * Whether the node runs Galera (`wsrep_on`), and its write-set limits (0: none); throws when
   * it cannot be asked.
   */
  async settings(timeoutMs: number): Promise<{ galera: boolean; limits: WriteSetLimits }> {
    const [row] = await queryWithin(
      this.pool,
      'SELECT @@wsrep_on AS wsrep, @@wsrep_max_ws_rows AS ws_rows, @@wsrep_max_ws_size AS ws_size',
      [],
      timeoutMs,
    );
    return {
      galera: wsrepOn(row?.wsrep),
      limits: { rows: Number(row?.ws_rows ?? 0), bytes: Number(row?.ws_size ?? 0) },
    };
  }

  /** Reads its wsrep state; a node that does not answer within `timeoutMs` is down. */
  async check(timeoutMs: number): Promise<void> {
    let rows: Row[];
    try {
      rows = await queryWithin(this.pool, STATUS_SQL, [], timeoutMs);
    } catch (error) {
      this.failed(error as Error);
      return;
    }
    const value = (name: string) => {
      const row = rows.find((r) => r.Variable_name === name);
      return row ? String(row.Value) : null;
    };
    const local = value('wsrep_local_state_comment');
    const cluster = value('wsrep_cluster_status');
    const state: ClusterNodeStatus['state'] =
      cluster !== 'Primary' ? 'non-primary' : local === 'Synced' ? 'synced' : 'not synced';
    const { error: _, ...rest } = this.status;
    this.status = { ...rest, state, local_state: local, cluster_status: cluster };
    if (state === 'non-primary') this.status.error = `wsrep_cluster_status is ${cluster}`;
    if (state === 'not synced') this.status.error = `wsrep_local_state_comment is ${local}`;
  }

  /** A call failed as if the node were gone: down until a check finds it back. */
  failed(error: Error): void {
    this.status = {
      ...this.status,
      state: 'down',
      local_state: null,
      cluster_status: null,
      error: error.message,
    };
  }
}

/**
 * The nodes of a Galera cluster named in DATABASE_URL, and where writes and reads go. Each node
 * is checked every `checkEveryMs` (reachable within `checkTimeoutMs`, Synced, Primary); a call
 * that fails as if the node were gone marks it down at once. Writes go through the first healthy
 * node of the list, so every instance given the same list writes through the same node and
 * their transactions rarely conflict; when it fails, writes move to the next healthy one, and
 * back once the first is healthy again. Reads go round robin over the healthy nodes. As with
 * replicas, this is the process's own observation: nothing is shared between instances.
 */
export class GaleraCluster extends CheckedRotation<GaleraNode> {
  /** The node holding the writer's role; none while no node is healthy. */
  private current?: GaleraNode;
  /** Where writes go while none is healthy: the last writer (they fail there, as they should). */
  private last: GaleraNode;
  /**
   * The write-set limits of the nodes that answered at the start, the smallest of each (0: none):
   * a transaction must fit on every node that may become the writer.
   */
  limits: WriteSetLimits = { rows: 0, bytes: 0 };

  constructor(
    readonly nodes: GaleraNode[],
    readonly options: ClusterOptions,
    private readonly onFailover: FailoverListener = () => undefined,
  ) {
    super(options.checkEveryMs);
    this.last = nodes[0];
    for (const node of nodes) {
      node.calls = watched(node.pool, (error) => {
        failedOn.set(error, node);
        if (nodeGone(error)) this.failed(node, error);
      });
    }
  }

  /**
   * The transactions' retry policy on this cluster, from the service's (`base`): conflicts (a
   * deadlock, or a write-set that failed certification, 1213) get a larger budget with more
   * jitter, since two nodes' writers may collide again; each retry is counted on the node that
   * refused. A try whose writer went away before COMMIT was sent (refused, lost, 1047: nothing
   * written) is run again once, at once, where a healthy writer other than that node has taken
   * over (the watched pools move the writer as soon as a call fails that way).
   */
  retryPolicy(base: RetryPolicy): RetryPolicy {
    return base.with({
      attempts: CONFLICT_ATTEMPTS,
      jitterMs: CONFLICT_JITTER_MS,
      againOnce: (error) => {
        if (!nodeGone(error) || mayHaveCommitted(error)) return false;
        const writer = this.current;
        return writer !== undefined && writer !== failedOn.get(error as object);
      },
      onRetry: (error) => {
        if (!isWriteConflict(error)) return;
        const node = failedOn.get(error as object) ?? this.writer();
        node.status.conflict_retries++;
      },
    });
  }

  /**
   * Checks that the nodes run Galera (those that answer) and reads their write-set limits, checks
   * every node once, then keeps checking in the background.
   */
  async start(): Promise<void> {
    const answers = await Promise.allSettled(
      this.nodes.map((node) => node.settings(this.options.checkTimeoutMs)),
    );
    const found = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
    const least = (values: number[]) => Math.min(...values.filter((v) => v > 0), Infinity);
    for (const key of ['rows', 'bytes'] as const) {
      const value = least(found.map((f) => f.limits[key]));
      this.limits[key] = Number.isFinite(value) ? value : 0;
    }
    const notGalera = this.nodes.filter(
      (_, i) => answers[i].status === 'fulfilled' && !answers[i].value.galera,
    );
    if (notGalera.length > 0) {
      const names = notGalera.map((n) => n.status.url).join(', ');
      throw new Error(
        `DATABASE_URL names ${this.nodes.length} nodes, but ${names} ` +
          `${notGalera.length > 1 ? 'are not Galera nodes' : 'is not a Galera node'} ` +
          '(wsrep_on is OFF): several nodes are for a Galera cluster only',
      );
    }
    await this.startChecking();
  }

  /** The node writes go through: the first healthy one (the last writer while none is). */
  writer(): GaleraNode {
    return this.current ?? this.last;
  }

  /** A call on `node` failed because the node is gone (refused, lost, past the deadline, 1047). */
  failed(node: GaleraNode, error: Error): void {
    node.failed(error);
    this.update();
  }

  status(): ClusterStatus {
    return {
      writer: this.current?.name ?? null,
      nodes: this.nodes.map((n) => ({ ...n.status, writer: n === this.current })),
    };
  }

  /** Checks every node once, and updates the writer and the rotation (the healthy nodes, in list order). */
  async checkAll(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.check(this.options.checkTimeoutMs)));
    this.update();
  }

  /** The rotation and the writer after any node's state changed; the listener hears each move. */
  private update(): void {
    this.rotation = this.nodes.filter((n) => n.healthy);
    const next = this.rotation[0];
    const before = this.current;
    if (next === before) return;
    this.current = next;
    if (next) this.last = next;
    let reason: string;
    if (!before) {
      reason = 'the first healthy node of the list';
    } else {
      before.status.failovers++;
      reason = before.healthy
        ? `${next!.name} is healthy again, and before it in the list`
        : `${before.name} is ${before.status.state}` +
          (before.status.error ? ` (${before.status.error})` : '');
    }
    this.onFailover(before && { ...before.status }, next && { ...next.status }, reason);
  }
}

/**
 * Tries of a transaction on a cluster, and the pause's scale: writers on two nodes of a cluster
 * (instances given the nodes in another order, or moments of a failover) conflict more often
 * than transactions on one server deadlock, and each conflict costs a certification round. Two
 * instances hammering one record through two nodes (test/ops/galera/conflicts.spec.ts) left 5 of
 * 192 writes past 8 tries of 30 ms; 12 tries of 60 ms, none.
 */
const CONFLICT_ATTEMPTS = 12;
const CONFLICT_JITTER_MS = 60;

/** The node each error of a watched pool came from (for the retry policy and its counts). */
const failedOn = new WeakMap<object, GaleraNode>();

/** Codes of a busy database rather than a gone node: a deadlock or conflict, a lock wait. */
const BUSY = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

/** Whether a call's error says its node is gone (not the statement, nor a conflict). */
export function nodeGone(error: unknown): boolean {
  return isDatabaseUnavailable(error) && !isStatementTimeout(error) && !BUSY.has(errorCode(error));
}

/**
 * `pool`, telling `onError` of every error of it or of its connections: one that says the node
 * is gone moves a write or read that meets a dead node at once, without waiting for the next
 * check. (A frozen node says nothing: the checks find it, within their deadline.)
 */
export function watched(pool: MysqlPool, onError: (error: Error) => void): MysqlPool {
  const tell = (error: Error | null) => {
    if (error) onError(error);
  };
  return {
    query(sql, parameters, callback) {
      pool.query(sql, parameters, (error, rows) => {
        tell(error);
        callback(error, rows);
      });
    },
    getConnection(callback) {
      pool.getConnection((error, connection) => {
        tell(error);
        if (error) return callback(error, connection);
        callback(null, {
          query: (sql, parameters, done) =>
            connection.query(sql, parameters, (failure, rows) => {
              tell(failure);
              done(failure, rows);
            }),
          release: () => connection.release(),
          destroy: () => connection.destroy(),
        });
      });
    },
  };
}

/** TypeORM's `replication` option as src/database/data-source-options.ts writes it for a cluster. */
export interface ClusterServers {
  master: { url: string };
  slaves: { url: string }[];
}

/**
 * The cluster over the pools TypeORM opened: the node it connected to is MASTER, the others
 * SLAVE0, SLAVE1, … (`poolNamed` gives each), put back here in the order of DATABASE_URL
 * (`options.nodes`), which decides the writer.
 */
export function clusterOf(
  poolNamed: (name: string) => MysqlPool,
  servers: ClusterServers,
  options: ClusterOptions & { nodes: string[]; onFailover?: FailoverListener },
): GaleraCluster {
  const byUrl = new Map<string, string>([
    [servers.master.url, 'MASTER'],
    ...servers.slaves.map((slave, index) => [slave.url, `SLAVE${index}`] as const),
  ]);
  const nodes = options.nodes.map((url, index) => {
    const name = byUrl.get(url);
    if (!name) throw new Error(`no pool for node ${index + 1} of the cluster`);
    return new GaleraNode(poolNamed(name), url, `node${index + 1}`);
  });
  return new GaleraCluster(nodes, options, options.onFailover);
}
