import { CommitOutcomeUnknown, DatabaseDeadline } from '../../../../src/rest/db/database-errors';
import { ClusterNodeStatus, GaleraCluster, GaleraNode } from '../../../../src/rest/db/galera';
import { MysqlConnection, MysqlPool } from '../../../../src/rest/db/replicas';
import { Row } from '../../../../src/rest/db/sql-database';
import { MysqlSession } from '../../../../src/rest/db/transaction-sessions';
import { CONFLICT_RETRY, TransactionRunner } from '../../../../src/rest/db/transactions';

/** What a fake node answers: its wsrep state, an error, or nothing at all (frozen). */
type Answer =
  | { local: string; cluster: string; wsrep?: number }
  | { error: Error & { code?: string; errno?: number } }
  | 'frozen';

const SYNCED = { local: 'Synced', cluster: 'Primary' };

function failure(code: string, errno?: number, message = code) {
  return { error: Object.assign(new Error(message), { code, errno }) };
}

/** A pool whose every statement answers as `node.answer` says at the time. */
function fakePool(node: { answer: Answer }): MysqlPool {
  const run = (sql: string, callback: (error: Error | null, rows: Row[]) => void) => {
    const answer = node.answer;
    if (answer === 'frozen') return;
    if ('error' in answer) return callback(answer.error, []);
    if (sql.includes('@@wsrep_on')) return callback(null, [{ wsrep: answer.wsrep ?? 1 }]);
    if (sql.startsWith('SHOW GLOBAL STATUS')) {
      return callback(null, [
        { Variable_name: 'wsrep_local_state_comment', Value: answer.local },
        { Variable_name: 'wsrep_cluster_status', Value: answer.cluster },
      ]);
    }
    callback(null, [{ ok: 1 }]);
  };
  const connection: MysqlConnection = {
    query: (sql, _parameters, callback) => run(sql, callback),
    release: () => undefined,
    destroy: () => undefined,
  };
  return {
    query: (sql, _parameters, callback) => run(sql, callback),
    getConnection: (callback) => callback(null, connection),
  };
}

interface Move {
  from?: string;
  to?: string;
  reason: string;
}

function makeCluster(answers: Answer[]) {
  const states = answers.map((answer) => ({ answer }));
  const nodes = states.map(
    (state, i) => new GaleraNode(fakePool(state), `mysql://app:pw@h${i + 1}/db`, `node${i + 1}`),
  );
  const moves: Move[] = [];
  const cluster = new GaleraCluster(
    nodes,
    { checkEveryMs: 60_000, checkTimeoutMs: 50, causalReads: 'causal' },
    (from?: ClusterNodeStatus, to?: ClusterNodeStatus, reason = '') =>
      moves.push({ from: from?.name, to: to?.name, reason }),
  );
  return { cluster, nodes, states, moves };
}

describe('a Galera cluster as the service sees it', () => {
  let stop: () => void = () => undefined;
  afterEach(() => stop());

  const started = async (answers: Answer[]) => {
    const made = makeCluster(answers);
    await made.cluster.start();
    stop = () => made.cluster.stop();
    return made;
  };

  it('should write through the first healthy node and read round robin over the healthy ones', async () => {
    const { cluster, moves } = await started([SYNCED, SYNCED, SYNCED]);
    expect(cluster.writer().name).toBe('node1');
    expect(moves).toEqual([
      { from: undefined, to: 'node1', reason: 'the first healthy node of the list' },
    ]);
    const picks = Array.from({ length: 4 }, () => cluster.pick()!.name);
    expect(picks).toEqual(['node1', 'node2', 'node3', 'node1']);
    expect(cluster.status()).toEqual({
      writer: 'node1',
      nodes: [1, 2, 3].map((i) => ({
        name: `node${i}`,
        url: `mysql://app:***@h${i}/db`,
        state: 'synced',
        local_state: 'Synced',
        cluster_status: 'Primary',
        writer: i === 1,
        failovers: 0,
        conflict_retries: 0,
      })),
    });
  });

  it('should pass over a node that is not Synced, or not in the primary component', async () => {
    const { cluster } = await started([
      { local: 'Donor/Desynced', cluster: 'Primary' },
      { local: 'Initialized', cluster: 'non-Primary' },
      SYNCED,
    ]);
    expect(cluster.writer().name).toBe('node3');
    expect(cluster.status().nodes.map((n) => [n.state, n.error])).toEqual([
      ['not synced', 'wsrep_local_state_comment is Donor/Desynced'],
      ['non-primary', 'wsrep_cluster_status is non-Primary'],
      ['synced', undefined],
    ]);
  });

  it('should move writes off a node that dies, count it, and move them back when it is healthy again', async () => {
    const { cluster, states, moves } = await started([SYNCED, SYNCED, SYNCED]);
    states[0].answer = failure('ECONNREFUSED', undefined, 'connect ECONNREFUSED h1:3306');
    await cluster.checkAll();
    expect(cluster.writer().name).toBe('node2');
    expect(moves.at(-1)).toEqual({
      from: 'node1',
      to: 'node2',
      reason: 'node1 is down (connect ECONNREFUSED h1:3306)',
    });
    expect(cluster.status().nodes[0]).toMatchObject({
      state: 'down',
      local_state: null,
      failovers: 1,
    });
    states[0].answer = SYNCED;
    await cluster.checkAll();
    expect(cluster.writer().name).toBe('node1');
    expect(moves.at(-1)).toEqual({
      from: 'node2',
      to: 'node1',
      reason: 'node1 is healthy again, and before it in the list',
    });
    expect(moves).toHaveLength(3);
  });

  it('should count a frozen node as down once its check passes the deadline', async () => {
    const { cluster, states } = await started([SYNCED, SYNCED]);
    states[0].answer = 'frozen';
    await cluster.checkAll();
    expect(cluster.writer().name).toBe('node2');
    expect(cluster.status().nodes[0]).toMatchObject({
      state: 'down',
      error: 'the database did not answer within 50 ms',
    });
  });

  it('should move writes at once when a call meets a gone node (refused, lost, 1047), not on a conflict', async () => {
    const { cluster, nodes, states } = await started([SYNCED, SYNCED]);
    const call = (node: GaleraNode) =>
      new Promise((resolve) => node.calls.query('SELECT 1', [], (error) => resolve(error)));
    states[0].answer = failure('ER_LOCK_DEADLOCK', 1213);
    await call(nodes[0]);
    expect(cluster.writer().name).toBe('node1');
    states[0].answer = failure('ER_UNKNOWN_COM_ERROR', 1047, 'WSREP has not yet prepared node');
    await call(nodes[0]);
    expect(cluster.writer().name).toBe('node2');
    expect(cluster.status().nodes[0].error).toBe('WSREP has not yet prepared node');
  });

  it('should say no writer while no node is healthy, and keep the last one for the writes to fail on', async () => {
    const { cluster, states, moves } = await started([SYNCED, SYNCED]);
    states[0].answer = { local: 'Initialized', cluster: 'non-Primary' };
    states[1].answer = { local: 'Initialized', cluster: 'non-Primary' };
    await cluster.checkAll();
    expect(cluster.status().writer).toBeNull();
    expect(cluster.writer().name).toBe('node1');
    expect(cluster.pick()).toBeUndefined();
    expect(moves.at(-1)).toEqual({
      from: 'node1',
      to: undefined,
      reason: 'node1 is non-primary (wsrep_cluster_status is non-Primary)',
    });
    states[1].answer = SYNCED;
    await cluster.checkAll();
    expect(cluster.status().writer).toBe('node2');
  });

  /** The error a call on `node` fails with (its pool as the service uses it). */
  const errorOf = (node: GaleraNode) =>
    new Promise<Error>((resolve) =>
      node.calls.query('UPDATE', [], (error) => resolve(error as Error)),
    );

  it('should give conflicts a larger budget and count each retry on the node that refused', async () => {
    const { cluster, nodes, states } = await started([SYNCED, SYNCED]);
    const policy = cluster.retryPolicy(CONFLICT_RETRY);
    states[1].answer = failure('ER_LOCK_DEADLOCK', 1213);
    const conflict = await errorOf(nodes[1]);
    expect([
      policy.pauseAfter(conflict, 11, 0) !== undefined,
      policy.pauseAfter(conflict, 12, 0),
    ]).toEqual([true, undefined]);
    policy.options.onRetry!(conflict, 1);
    policy.options.onRetry!(conflict, 2);
    // Other errors run again (a duplicate key) are not conflicts of the cluster's.
    policy.options.onRetry!(Object.assign(new Error('dup'), { code: 'ER_DUP_ENTRY' }), 1);
    expect(cluster.status().nodes.map((n) => [n.name, n.conflict_retries])).toEqual([
      ['node1', 0],
      ['node2', 2],
    ]);
    expect(cluster.writer().name).toBe('node1');
  });

  it('should run a write again once, at once, on the next writer when its writer went away before COMMIT', async () => {
    const { cluster, nodes, states } = await started([SYNCED, SYNCED]);
    const policy = cluster.retryPolicy(CONFLICT_RETRY);
    const runner = new TransactionRunner(
      () => MysqlSession.open(cluster.writer().calls, 0, false),
      policy,
    );
    states[0].answer = failure('ECONNREFUSED', undefined, 'connect ECONNREFUSED h1:3306');
    const sent: string[] = [];
    await runner.transaction(async (tx) => {
      sent.push(cluster.writer().name);
      return tx.run('UPDATE');
    });
    expect([sent, cluster.writer().name]).toEqual([['node2'], 'node2']);

    // Once only, and only on the first try; never a COMMIT that may have been saved.
    const gone = await errorOf(nodes[0]);
    expect([
      policy.pauseAfter(gone, 1, 0),
      policy.pauseAfter(gone, 2, 0),
      policy.pauseAfter(new CommitOutcomeUnknown(gone), 1, 0),
    ]).toEqual([0, undefined, undefined]);
    // A deadline before COMMIT (node unknown) runs again on the writer there is.
    expect(policy.pauseAfter(new DatabaseDeadline(3000, false), 1, 0)).toBe(0);
    expect(policy.pauseAfter(new DatabaseDeadline(3000, true), 1, 0)).toBeUndefined();
  });

  it('should not run again on the node that failed, nor while no node may take writes', async () => {
    const { cluster, nodes, states } = await started([SYNCED, SYNCED]);
    const policy = cluster.retryPolicy(CONFLICT_RETRY);
    // A failure of node2, which is not the writer: node1 still is, and it is another node.
    states[1].answer = failure('PROTOCOL_CONNECTION_LOST', undefined, 'Connection lost');
    expect(policy.pauseAfter(await errorOf(nodes[1]), 1, 0)).toBe(0);
    states[0].answer = failure('ER_UNKNOWN_COM_ERROR', 1047, 'WSREP has not yet prepared node');
    const refused = await errorOf(nodes[0]);
    expect(cluster.status().writer).toBeNull();
    expect(policy.pauseAfter(refused, 1, 0)).toBeUndefined();
  });

  it('should refuse nodes that do not run Galera, naming them', async () => {
    const { cluster } = makeCluster([SYNCED, { ...SYNCED, wsrep: 0 }]);
    await expect(cluster.start()).rejects.toThrow(
      'DATABASE_URL names 2 nodes, but mysql://app:***@h2/db is not a Galera node ' +
        '(wsrep_on is OFF): several nodes are for a Galera cluster only',
    );
  });
});
