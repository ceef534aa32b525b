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

/**
 * What a fake node is: how it answers at the time, and the answers of some write statements of
 * its own (a COMMIT that hangs or is refused), with every statement it was sent.
 */
interface FakeNode {
  answer: Answer;
  statements?: Record<string, Answer>;
  sent?: string[];
}

/** A pool whose every statement answers as `node.answer` (or `node.statements`) says at the time. */
function fakePool(node: FakeNode): MysqlPool {
  const run = (sql: string, callback: (error: Error | null, rows: Row[]) => void) => {
    node.sent?.push(sql);
    const answer = node.statements?.[sql] ?? node.answer;
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
  const states: FakeNode[] = answers.map((answer) => ({ answer, sent: [] }));
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
        keyed_reruns: 0,
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

  /** A runner of transactions on the cluster's writer, as the service's, with no deadline. */
  const runnerOn = (cluster: GaleraCluster) =>
    new TransactionRunner(
      () => MysqlSession.open(cluster.writer().calls, 0, false),
      cluster.retryPolicy(CONFLICT_RETRY),
    );
  /** A write that notes the writer each of its tries ran on; keyed or not. */
  const write = (
    cluster: GaleraCluster,
    runner: TransactionRunner,
    ran: string[],
    idempotent: boolean,
  ) =>
    runner
      .transaction(
        async (tx) => {
          ran.push(cluster.writer().name);
          await tx.run('INSERT key');
        },
        { idempotent },
      )
      .then(
        () => ({ written: true }),
        (error: Error) => ({ error }),
      );
  /** `promise`, or 'still waiting' after 200 ms. */
  const within = <T>(promise: Promise<T>) =>
    Promise.race([promise, new Promise((r) => setTimeout(() => r('still waiting'), 200))]);
  const untilSent = async (node: FakeNode, sql: string, count: number) => {
    while (node.sent!.filter((s) => s === sql).length < count) {
      await new Promise((r) => setImmediate(r));
    }
  };
  const PRIMARY_LOST = failure(
    'ER_ERROR_DURING_COMMIT',
    1180,
    'Error while appending streaming replication fragment(provider status: Not connected to Primary Component)',
  );

  it('should give up the calls held by a node its check finds down, and run a keyed write whose COMMIT it held again on the next writer', async () => {
    const { cluster, states } = await started([SYNCED, SYNCED]);
    const runner = runnerOn(cluster);
    // node1 freezes with two COMMITs in flight: a keyed write's and another's.
    states[0].statements = { COMMIT: 'frozen' };
    const [keyedRan, plainRan]: string[][] = [[], []];
    const keyed = write(cluster, runner, keyedRan, true);
    const plain = write(cluster, runner, plainRan, false);
    await untilSent(states[0], 'COMMIT', 2);
    states[0].answer = 'frozen';
    await cluster.checkAll();
    // Given up on at once (no deadline here: without it they would wait for ever).
    expect(await within(keyed)).toEqual({ written: true });
    expect(keyedRan).toEqual(['node1', 'node2']);
    const refused = (await within(plain)) as { error: CommitOutcomeUnknown };
    expect([refused.error instanceof CommitOutcomeUnknown, refused.error.message]).toEqual([
      true,
      'no answer to COMMIT: node1 stopped answering (the database did not answer within 50 ms): ' +
        'the call on it was given up',
    ]);
    expect(plainRan).toEqual(['node1']);
    expect(states[1].sent!.filter((s) => !/^(SHOW|SELECT @@)/.test(s))).toEqual([
      'START TRANSACTION',
      'INSERT key',
      'COMMIT',
    ]);
    expect(cluster.status().nodes.map((n) => [n.name, n.state, n.keyed_reruns])).toEqual([
      ['node1', 'down', 1],
      ['node2', 'synced', 0],
    ]);
  });

  it('should leave the calls of a node that answers its check alone', async () => {
    const { cluster, states } = await started([SYNCED, SYNCED]);
    states[0].statements = { COMMIT: 'frozen' };
    const held = write(cluster, runnerOn(cluster), [], true);
    await untilSent(states[0], 'COMMIT', 1);
    await cluster.checkAll();
    expect(await within(held)).toBe('still waiting');
    expect(cluster.writer().name).toBe('node1');
  });

  it('should take a COMMIT refused without the primary component as "may have been saved", move the writes, and run a keyed one again only where another node writes', async () => {
    const { cluster, states } = await started([SYNCED, SYNCED]);
    const runner = runnerOn(cluster);
    states[0].statements = { COMMIT: PRIMARY_LOST };
    const ran: string[] = [];
    expect(await write(cluster, runner, ran, true)).toEqual({ written: true });
    expect([ran, cluster.writer().name]).toEqual([['node1', 'node2'], 'node2']);
    // Then the last writer loses it too: no other node writes, so not run again.
    states[1].statements = { COMMIT: PRIMARY_LOST };
    const [keyedRan, plainRan]: string[][] = [[], []];
    const outcomes = await Promise.all([
      write(cluster, runner, keyedRan, true),
      write(cluster, runner, plainRan, false),
    ]);
    expect(
      outcomes.map((o) => ('error' in o ? o.error instanceof CommitOutcomeUnknown : o)),
    ).toEqual([true, true]);
    expect([keyedRan, plainRan, cluster.status().writer]).toEqual([['node2'], ['node2'], null]);
    expect(cluster.status().nodes.map((n) => n.keyed_reruns)).toEqual([1, 0]);
  });

  it('should refuse nodes that do not run Galera, naming them', async () => {
    const { cluster } = makeCluster([SYNCED, { ...SYNCED, wsrep: 0 }]);
    await expect(cluster.start()).rejects.toThrow(
      'DATABASE_URL names 2 nodes, but mysql://app:***@h2/db is not a Galera node ' +
        '(wsrep_on is OFF): several nodes are for a Galera cluster only',
    );
  });
});
