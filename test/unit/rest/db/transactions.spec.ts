/**
 * The transaction runner's rules on a session that records what was done to it: a connection goes
 * back to the pool only when the server says no transaction is open on it; a lost one is ended;
 * a COMMIT without an answer is CommitOutcomeUnknown and never run again; which errors the retry
 * policy runs again.
 */
import {
  CommitOutcomeUnknown,
  endsConnection,
  isContention,
  isDatabaseUnavailable,
  isInterrupted,
  mayHaveCommitted,
} from '../../../../src/rest/db/database-errors';
import type {
  SessionAnswer,
  TransactionSession,
} from '../../../../src/rest/db/transaction-sessions';
import { CONFLICT_RETRY, TransactionRunner } from '../../../../src/rest/db/transactions';

function driverError(code: string, errno = 0, fatal = false): Error {
  return Object.assign(new Error(code), { code, errno, ...(fatal ? { fatal } : {}) });
}

/** A session whose statements answer from `answers` (an Error fails the statement). */
class FakeSession implements TransactionSession {
  readonly begin = 'START TRANSACTION';
  ended = false;
  fate: 'held' | 'released' | 'destroyed' = 'held';
  sent: string[] = [];
  open = false;
  constructor(
    readonly fail: Record<string, Error> = {},
    /** As MySQL: statements may go with the COMMIT as one text. */
    readonly batchesCommit = false,
  ) {}
  async send(sql: string): Promise<SessionAnswer> {
    this.sent.push(sql);
    if (sql === this.begin) this.open = true;
    const error = this.fail[sql];
    // A refused statement leaves the transaction open, as 1205 and 1317 do.
    if (error) throw error;
    if (sql.endsWith('COMMIT') || sql === 'ROLLBACK') this.open = false;
    return { result: { rows: [], affected: 1, insertId: 0 }, inTransaction: this.open };
  }
  lostBy(error: unknown) {
    return this.ended || endsConnection(error);
  }
  commitUncertain(error: unknown) {
    return this.lostBy(error);
  }
  release() {
    this.ended = true;
    this.fate = 'released';
  }
  destroy() {
    this.ended = true;
    this.fate = 'destroyed';
  }
}

function runnerOf(...sessions: FakeSession[]) {
  const queue = [...sessions];
  return new TransactionRunner(async () => queue.shift()!);
}

describe('TransactionRunner', () => {
  it('should commit and give the connection back', async () => {
    const session = new FakeSession();
    const result = await runnerOf(session).transaction(
      async (tx) => (await tx.run('UPDATE')).affected,
    );
    expect([result, session.sent, session.fate]).toEqual([
      1,
      ['START TRANSACTION', 'UPDATE', 'COMMIT'],
      'released',
    ]);
  });

  it('should roll back a lock wait timeout, give the connection back, and not run it again', async () => {
    const timeout = driverError('ER_LOCK_WAIT_TIMEOUT', 1205);
    const session = new FakeSession({ 'INSERT key': timeout });
    const failed = await runnerOf(session)
      .transaction(async (tx) => {
        await tx.run('UPDATE');
        await tx.run('INSERT key');
      })
      .catch((e: unknown) => e);
    expect(failed).toBe(timeout);
    expect([session.sent, session.fate]).toEqual([
      ['START TRANSACTION', 'UPDATE', 'INSERT key', 'ROLLBACK'],
      'released',
    ]);
  });

  it('should end a connection whose ROLLBACK fails, never give it back', async () => {
    const session = new FakeSession({
      UPDATE: driverError('ER_QUERY_INTERRUPTED', 1317),
      ROLLBACK: new Error('no answer'),
    });
    await runnerOf(session)
      .transaction((tx) => tx.run('UPDATE'))
      .catch(() => undefined);
    expect(session.fate).toBe('destroyed');
  });

  it('should end a lost connection without a ROLLBACK', async () => {
    const session = new FakeSession({ UPDATE: driverError('PROTOCOL_CONNECTION_LOST', 0, true) });
    await runnerOf(session)
      .transaction((tx) => tx.run('UPDATE'))
      .catch(() => undefined);
    expect([session.sent, session.fate]).toEqual([['START TRANSACTION', 'UPDATE'], 'destroyed']);
  });

  it('should say a COMMIT without an answer may have been saved, and not run it again', async () => {
    const session = new FakeSession({ COMMIT: driverError('ECONNRESET', 0, true) });
    const spare = new FakeSession();
    const failed = await runnerOf(session, spare)
      .transaction((tx) => tx.run('UPDATE'))
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(CommitOutcomeUnknown);
    expect(mayHaveCommitted(failed)).toBe(true);
    expect([session.fate, spare.sent]).toEqual(['destroyed', []]);
  });

  it('should run a keyed (idempotent) transaction again after a lost COMMIT only where the policy says, and nothing else', async () => {
    const lost = () => new FakeSession({ COMMIT: driverError('ECONNRESET', 0, true) });
    const told: unknown[] = [];
    const policy = CONFLICT_RETRY.with({
      againAfterLostCommit: (error) => (told.push(error), true),
    });
    const runner = (...sessions: FakeSession[]) => {
      const queue = [...sessions];
      return new TransactionRunner(async () => queue.shift()!, policy);
    };
    // Keyed: run again on a fresh transaction, once the policy agrees.
    const [first, second] = [lost(), new FakeSession()];
    await runner(first, second).transaction((tx) => tx.run('UPDATE'), { idempotent: true });
    expect([first.fate, second.sent, told.map((e) => e instanceof CommitOutcomeUnknown)]).toEqual([
      'destroyed',
      ['START TRANSACTION', 'UPDATE', 'COMMIT'],
      [true],
    ]);
    // Not keyed: "may have been saved", never run again, the policy not even asked.
    told.length = 0;
    const spare = new FakeSession();
    const failed = await runner(lost(), spare)
      .transaction((tx) => tx.run('UPDATE'))
      .catch((e: unknown) => e);
    expect([failed instanceof CommitOutcomeUnknown, spare.sent, told]).toEqual([true, [], []]);
    // Keyed, but the policy says no (one server; a cluster with no other writer): not run again.
    const refusing = CONFLICT_RETRY.with({ againAfterLostCommit: () => false });
    const error = new CommitOutcomeUnknown(driverError('ECONNRESET', 0, true));
    expect([
      refusing.pauseAfter(error, 1, 0, true),
      CONFLICT_RETRY.pauseAfter(error, 1, 0, true),
      policy.pauseAfter(error, 1, 0, true),
      // Within the policy's tries only.
      policy.pauseAfter(error, CONFLICT_RETRY.options.attempts, 0, true),
    ]).toEqual([undefined, undefined, 0, undefined]);
  });

  it('should run a deadlock again whole on a fresh transaction', async () => {
    const first = new FakeSession({ UPDATE: driverError('ER_LOCK_DEADLOCK', 1213) });
    const second = new FakeSession();
    await runnerOf(first, second).transaction((tx) => tx.run('UPDATE'));
    expect([first.fate, first.sent]).toEqual([
      'released',
      ['START TRANSACTION', 'UPDATE', 'ROLLBACK'],
    ]);
    expect(second.sent).toEqual(['START TRANSACTION', 'UPDATE', 'COMMIT']);
  });

  describe('statements sent with the COMMIT', () => {
    /** A write whose outbox row goes with its COMMIT; the after-commit callback says it ran. */
    async function outboxWrite(runner: TransactionRunner) {
      let told = false;
      const outcome = await runner
        .transaction(async (tx) => {
          await tx.run('UPDATE');
          tx.withCommit('INSERT event', []);
          tx.afterCommit(() => (told = true));
        })
        .then(
          () => 'committed',
          (e: unknown) => e,
        );
      return { outcome, told };
    }

    it("should send them in the COMMIT's round trip where the database takes several statements", async () => {
      const session = new FakeSession({}, true);
      expect(await outboxWrite(runnerOf(session))).toEqual({ outcome: 'committed', told: true });
      expect([session.sent, session.fate]).toEqual([
        ['START TRANSACTION', 'UPDATE', 'INSERT event; COMMIT'],
        'released',
      ]);
    });

    it('should send them just before the COMMIT elsewhere', async () => {
      const session = new FakeSession();
      expect(await outboxWrite(runnerOf(session))).toEqual({ outcome: 'committed', told: true });
      expect(session.sent).toEqual(['START TRANSACTION', 'UPDATE', 'INSERT event', 'COMMIT']);
    });

    it('should roll back when the server refuses them, and commit nothing', async () => {
      const full = driverError('ER_RECORD_FILE_FULL', 1114);
      const session = new FakeSession({ 'INSERT event; COMMIT': full }, true);
      expect(await outboxWrite(runnerOf(session))).toEqual({ outcome: full, told: false });
      expect([session.sent.at(-1), session.fate]).toEqual(['ROLLBACK', 'released']);
    });

    it("should say the write may have been saved when their answer is lost, as a COMMIT's", async () => {
      const lost = driverError('ECONNRESET', 0, true);
      const session = new FakeSession({ 'INSERT event; COMMIT': lost }, true);
      const { outcome, told } = await outboxWrite(runnerOf(session, new FakeSession({}, true)));
      expect([outcome instanceof CommitOutcomeUnknown, told, session.fate]).toEqual([
        true,
        false,
        'destroyed',
      ]);
    });
  });

  describe('after-commit callbacks', () => {
    /** Runs `work` registering a callback that notes the session's state when it is called. */
    async function told(runner: TransactionRunner, sessions: FakeSession[]) {
      const calls: string[] = [];
      const outcome = await runner
        .transaction(async (tx) => {
          tx.afterCommit(() => calls.push(sessions.map((s) => s.fate).join(',')));
          tx.afterCommit(() => {
            throw new Error('a careless callback');
          });
          tx.afterCommit(() => calls.push('second'));
          return (await tx.run('UPDATE')).affected;
        })
        .catch((e: unknown) => e);
      return { outcome, calls };
    }

    it('should call them once the COMMIT is answered and the connection is back, in order', async () => {
      const session = new FakeSession();
      // A throwing callback neither fails the write nor keeps the next one from being called.
      expect(await told(runnerOf(session), [session])).toEqual({
        outcome: 1,
        calls: ['released', 'second'],
      });
    });

    it('should not call them after a rollback, nor when the COMMIT may have been saved', async () => {
      const refused = new FakeSession({ UPDATE: driverError('ER_LOCK_WAIT_TIMEOUT', 1205) });
      expect((await told(runnerOf(refused), [refused])).calls).toEqual([]);
      const lost = new FakeSession({ COMMIT: driverError('ECONNRESET', 0, true) });
      expect((await told(runnerOf(lost), [lost])).calls).toEqual([]);
    });

    it('should call only those of the try that committed', async () => {
      const first = new FakeSession({ UPDATE: driverError('ER_LOCK_DEADLOCK', 1213) });
      const second = new FakeSession();
      expect(await told(runnerOf(first, second), [first, second])).toEqual({
        outcome: 1,
        calls: ['released,released', 'second'],
      });
    });
  });
});

describe('what a driver error means', () => {
  it.each([
    ['a lock wait timeout', driverError('ER_LOCK_WAIT_TIMEOUT', 1205), [false, true, false, true]],
    ['a deadlock', driverError('ER_LOCK_DEADLOCK', 1213), [false, true, false, true]],
    ['a killed query', driverError('ER_QUERY_INTERRUPTED', 1317), [false, false, true, true]],
    ['a killed connection', driverError('ER_CONNECTION_KILLED', 1927), [true, false, false, true]],
    [
      'a lost connection',
      driverError('PROTOCOL_CONNECTION_LOST', 0, true),
      [true, false, false, true],
    ],
    ['a syntax error', driverError('ER_PARSE_ERROR', 1064), [false, false, false, false]],
  ])(
    '%s: [endsConnection, isContention, isInterrupted, isDatabaseUnavailable]',
    (_what, error, expected) => {
      expect([
        endsConnection(error),
        isContention(error),
        isInterrupted(error),
        isDatabaseUnavailable(error),
      ]).toEqual(expected);
    },
  );

  it('should run deadlocks and duplicate keys again, not lock wait timeouts nor unknown commits', () => {
    const again = (error: unknown) => CONFLICT_RETRY.pauseAfter(error, 1, 0) !== undefined;
    expect([
      again(driverError('ER_LOCK_DEADLOCK', 1213)),
      again(driverError('ER_DUP_ENTRY', 1062)),
      again(driverError('ER_LOCK_WAIT_TIMEOUT', 1205)),
      again(new CommitOutcomeUnknown(driverError('ECONNRESET'))),
      CONFLICT_RETRY.pauseAfter(driverError('ER_LOCK_DEADLOCK', 1213), 5, 0),
    ]).toEqual([true, true, false, false, undefined]);
    const withCertification = CONFLICT_RETRY.also((e) => (e as Error).message === 'wsrep');
    expect(withCertification.pauseAfter(new Error('wsrep'), 1, 0)).toBeDefined();
  });

  it('should run a failed first try again once, at once, where againOnce says so, and tell each retry', async () => {
    const told: [string, number][] = [];
    const policy = CONFLICT_RETRY.with({
      againOnce: (e) => (e as Error).message === 'writer gone',
      onRetry: (e, attempt) => told.push([(e as Error).message, attempt]),
    });
    expect([
      policy.pauseAfter(new Error('writer gone'), 1, 0),
      policy.pauseAfter(new Error('writer gone'), 2, 0),
      policy.options.attempts,
    ]).toEqual([0, undefined, 5]);
    const gone = new FakeSession({ UPDATE: driverError('PROTOCOL_CONNECTION_LOST', 0, true) });
    gone.fail.UPDATE.message = 'writer gone';
    const conflict = new FakeSession({ UPDATE: driverError('ER_LOCK_DEADLOCK', 1213) });
    const queue = [gone, conflict, new FakeSession()];
    await new TransactionRunner(async () => queue.shift()!, policy).transaction((tx) =>
      tx.run('UPDATE'),
    );
    expect([told, gone.fate, conflict.fate]).toEqual([
      [
        ['writer gone', 1],
        ['ER_LOCK_DEADLOCK', 2],
      ],
      'destroyed',
      'released',
    ]);
  });
});
