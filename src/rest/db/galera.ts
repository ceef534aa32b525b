import {
  CommitOutcomeUnknown,
  errorCode,
  isDatabaseUnavailable,
  isStatementTimeout,
  isWriteConflict,
  mayHaveCommitted,
  NodeAbandoned,
} from './database-errors';
import { hidePassword, MysqlConnection, MysqlPool, queryWithin } from './replicas';
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
  /**
   * Its pool for the service's calls, set by the cluster: errors that say the node is gone mark
   * it down, and the calls waiting on it can be given up (`abandon`).
   */
  calls: WatchedPool;

  constructor(
    pool: MysqlPool,
    url: string,
    readonly name: string,
  ) {
    this.pool = pool;
    this.calls = watched(pool, () => undefined);
    this.status = {
      name,
      url: hidePassword(url),
      state: 'unknown',
      local_state: null,
      cluster_status: null,
      writer: false,
      failovers: 0,
      conflict_retries: 0,
      keyed_reruns: 0,
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
        // A call given up on is told after its node was found gone: nothing more to learn.
        if (nodeGone(error) && !(error instanceof NodeAbandoned)) this.failed(node, error);
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
   *
   * A keyed write (its unit of work stores under an Idempotency-Key) whose COMMIT got no answer
   * is run again, at once, where the node it was sent to is out of rotation (killed, frozen, cut
   * off from the quorum) and a healthy writer other than that node has taken over: the key makes
   * it safe. Its first COMMIT, if the cluster saved it after all, holds the key's row (or meets
   * the second run's in certification, where one of the two is refused): the second run finds the
   * key taken and replays the stored answer. Counted on the node that lost the answer.
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
      againAfterLostCommit: (error) => {
        const node = lostOn(error);
        const writer = this.current;
        return node !== undefined && !node.healthy && writer !== undefined && writer !== node;
      },
      onRetry: (error) => {
        if (error instanceof CommitOutcomeUnknown) {
          const node = lostOn(error);
          if (node) node.status.keyed_reruns++;
          return;
        }
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

  /**
   * Checks every node once, and updates the writer and the rotation (the healthy nodes, in list
   * order). The calls still waiting on a node the check found down (no answer within its
   * deadline: frozen, cut off, dead) are given up at once (NodeAbandoned), rather than at their
   * own deadline (QUERY_TIMEOUT_MS plus 1 s): one before its COMMIT runs again on the next
   * writer, a keyed one in its COMMIT too (retryPolicy).
   */
  async checkAll(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.check(this.options.checkTimeoutMs)));
    this.update();
    for (const node of this.nodes) {
      if (node.status.state !== 'down') continue;
      node.calls.abandon(
        () => new NodeAbandoned(node.name, node.status.error ?? 'its check got no answer'),
      );
    }
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

/** The node a COMMIT's answer was lost on (CommitOutcomeUnknown), where a watched pool said. */
function lostOn(error: unknown): GaleraNode | undefined {
  if (!(error instanceof CommitOutcomeUnknown)) return undefined;
  const reason = error.reason;
  return typeof reason === 'object' && reason !== null ? failedOn.get(reason) : undefined;
}

/** Codes of a busy database rather than a gone node: a deadlock or conflict, a lock wait. */
const BUSY = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

/** Whether a call's error says its node is gone (not the statement, nor a conflict). */
export function nodeGone(error: unknown): boolean {
  return isDatabaseUnavailable(error) && !isStatementTimeout(error) && !BUSY.has(errorCode(error));
}

/** A node's pool whose waiting calls can be given up. */
export interface WatchedPool extends MysqlPool {
  /**
   * Fails every call still waiting (for a connection, or for a statement's answer) with the
   * error `reason` makes, each its own, told to `onError` like any other; their connections are
   * destroyed, never given back (an answer may still come). Returns how many there were.
   */
  abandon(reason: () => Error): number;
}

/**
 * `pool`, telling `onError` of every error of it or of its connections: one that says the node
 * is gone moves a write or read that meets a dead node at once, without waiting for the next
 * check. (A frozen node says nothing: the checks find it, within their deadline, and give up
 * the calls waiting on it: `abandon`.)
 */
export function watched(pool: MysqlPool, onError: (error: Error) => void): WatchedPool {
  const tell = (error: Error | null) => {
    if (error) onError(error);
  };
  /** The calls waiting, each with how to give it up. */
  const waiting = new Set<(reason: () => Error) => void>();
  /**
   * `callback` called once: by the answer, or by `abandon` (then `giveUp` too, and the answer,
   * if it ever comes, is dropped).
   */
  const once = <V>(
    callback: (error: Error | null, value: V) => void,
    none: V,
    giveUp: () => void,
  ) => {
    let settled = false;
    const abort = (reason: () => Error) => {
      if (settled) return;
      settled = true;
      waiting.delete(abort);
      giveUp();
      const error = reason();
      tell(error);
      callback(error, none);
    };
    waiting.add(abort);
    return {
      answered: (error: Error | null, value: V) => {
        if (settled) return;
        settled = true;
        waiting.delete(abort);
        tell(error);
        callback(error, value);
      },
      get settled() {
        return settled;
      },
    };
  };
  const connectionOf = (connection: MysqlConnection): MysqlConnection => {
    let destroyed = false;
    const destroy = () => {
      if (destroyed) return;
      destroyed = true;
      connection.destroy();
    };
    return {
      query: (sql, parameters, done) => {
        const call = once<Row[]>(done, [], destroy);
        connection.query(sql, parameters, (failure, rows) => void call.answered(failure, rows));
      },
      release: () => {
        if (!destroyed) connection.release();
      },
      destroy,
    };
  };
  return {
    query(sql, parameters, callback) {
      const call = once<Row[]>(callback, [], () => undefined);
      pool.query(sql, parameters, (error, rows) => void call.answered(error, rows));
    },
    getConnection(callback) {
      const call = once<MysqlConnection>(
        callback,
        undefined as unknown as MysqlConnection,
        () => undefined,
      );
      pool.getConnection((error, connection) => {
        // Given up on while connecting: the connection that comes after all is not used.
        if (call.settled) return void connection?.destroy();
        call.answered(error, error ? connection : connectionOf(connection));
      });
    },
    abandon(reason) {
      const calls = [...waiting];
      for (const abort of calls) abort(reason);
      return calls.length;
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
