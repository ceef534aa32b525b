/**
 * The one place that starts, ends and retries transactions, for every write path (single, bulk,
 * actions, keyed, conditional, and the statements that commit by themselves), on MySQL and
 * SQLite. The rules, whatever ended a transaction:
 *
 * - COMMIT answered: the connection goes back to the pool (unless the server says a transaction
 *   is still open on it: then it is ended), then the work's after-commit callbacks are called
 *   (Tx.afterCommit: the change feed's nudge). No other ending calls them.
 * - A failure before COMMIT (a statement refused, a lock wait timeout, a killed query, an error of
 *   the work itself): ROLLBACK, and the connection goes back only when the server's answer to the
 *   ROLLBACK says no transaction is open; otherwise it is ended. Nothing was written.
 * - A connection lost, or given up on at the deadline, before COMMIT: ended, never given back.
 *   The server rolls back what it had not committed. Nothing was written.
 * - COMMIT sent and its answer lost (connection lost, deadline): ended, and the write fails with
 *   CommitOutcomeUnknown ("may have been saved"), not retried; but for a keyed write (its work
 *   stores under an Idempotency-Key: `idempotent`) on a cluster, run again on the new writer
 *   once the node it was sent to is out of rotation (RetryOptions.againAfterLostCommit): if the
 *   first COMMIT was saved after all, the key is taken and the stored answer is replayed.
 *
 * A retry (RetryPolicy) runs the whole work again on a fresh transaction, after the failed one
 * has ended by those rules.
 */
import { CommitOutcomeUnknown, errorCode } from './database-errors';
import { RunResult, SqlObserver, TransactionOptions, Tx } from './sql-database';
import type { TransactionSession } from './transaction-sessions';

export interface RetryOptions {
  /** Tries of one transaction in all, the first included. */
  attempts: number;
  /** The pause before try n+1 is random, up to this many milliseconds times n. */
  jitterMs: number;
  /** How long a transaction keeps trying while SQLite is locked by another process. */
  busyWaitMs: number;
  /** Whether a failed try is run again from the start (within `attempts`). */
  retryable: (error: unknown) => boolean;
  /**
   * Whether a failed first try is run again once, at once: on a cluster, a write whose writer
   * node went away before its COMMIT was sent (nothing written), run on the next writer.
   */
  againOnce?: (error: unknown) => boolean;
  /**
   * Whether a transaction marked `idempotent` whose COMMIT answer was lost (CommitOutcomeUnknown)
   * is run again, at once: on a cluster, when the node it was sent to is out of rotation and
   * another node takes the writes. Only an idempotent one: its key makes a second run safe.
   */
  againAfterLostCommit?: (error: unknown) => boolean;
  /** Told of each failed try that is run again (a cluster counts its conflicts per node). */
  onRetry?: (error: unknown, attempt: number) => void;
}

/**
 * Which failures a transaction is run again for, how often, and after what pause. A transaction
 * whose COMMIT may have been saved is not run again, unless its key makes that safe and the
 * policy says where (againAfterLostCommit).
 */
export class RetryPolicy {
  constructor(readonly options: RetryOptions) {}

  /** This policy, also retrying what `retryable` accepts (a cluster's certification conflicts). */
  also(retryable: (error: unknown) => boolean): RetryPolicy {
    const before = this.options.retryable;
    return new RetryPolicy({ ...this.options, retryable: (e) => before(e) || retryable(e) });
  }

  /** This policy with some options changed (a cluster's budget, its listener). */
  with(options: Partial<RetryOptions>): RetryPolicy {
    return new RetryPolicy({ ...this.options, ...options });
  }

  /**
   * The pause in milliseconds before running again after `error` ended try `attempt`, begun
   * `elapsedMs` after the first; undefined when it is not to run again. `idempotent`: the
   * transaction's key makes running it again after a lost COMMIT safe.
   */
  pauseAfter(
    error: unknown,
    attempt: number,
    elapsedMs: number,
    idempotent = false,
  ): number | undefined {
    if (error instanceof CommitOutcomeUnknown) {
      const again =
        idempotent &&
        attempt < this.options.attempts &&
        this.options.againAfterLostCommit?.(error) === true;
      return again ? 0 : undefined;
    }
    if (attempt === 1 && this.options.againOnce?.(error)) return 0;
    // SQLite locked by another process: better-sqlite3 would wait for it synchronously,
    // stopping every request of this process, so it fails at once and is tried again here.
    if (errorCode(error) === 'SQLITE_BUSY' && elapsedMs < this.options.busyWaitMs) {
      return 25 + Math.random() * 50;
    }
    if (attempt >= this.options.attempts || !this.options.retryable(error)) return undefined;
    // A short random pause, so that transactions that collided do not collide again.
    return Math.random() * this.options.jitterMs * attempt;
  }
}

/**
 * Run again from the start: a deadlock (InnoDB rolled the whole transaction back), and a
 * duplicate key (a unique value a concurrent transaction committed after our checks ran: on the
 * retry the checks see it and answer 400 naming the field). A lock wait timeout is not: the lock
 * is held by something that has not let go in all that time, and waiting again would hold the
 * request past its deadline; it is answered 503 "try again", nothing written.
 */
const CONFLICTS = new Set(['ER_LOCK_DEADLOCK', 'ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_UNIQUE']);

export const CONFLICT_RETRY = new RetryPolicy({
  attempts: 5,
  jitterMs: 20,
  busyWaitMs: 5000,
  retryable: (error) => CONFLICTS.has(errorCode(error)),
});

/**
 * A test's seam: told of each statement of a transaction (START TRANSACTION / BEGIN, the work's,
 * COMMIT, ROLLBACK) before it is sent. It may throw, failing the statement before it is sent, or
 * return an error that replaces the statement's answer once it has run (an answer lost).
 */
export type FaultInjector = (sql: string) => Error | undefined;

/** A statement sent with the COMMIT (Tx.withCommit). */
interface Statement {
  sql: string;
  parameters: unknown[];
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class TransactionRunner {
  /** Only tests set it (test/e2e/safe-writes/faults.e2e-spec.ts). */
  faults?: FaultInjector;

  constructor(
    /** A connection of its own for one transaction (the primary's pool on MySQL). */
    private readonly sessions: () => Promise<TransactionSession>,
    /** Set once the database is known (a Galera cluster has a policy of its own). */
    public retry: RetryPolicy = CONFLICT_RETRY,
    /** Told of the work's statements (not START TRANSACTION, COMMIT or ROLLBACK). */
    private readonly observe?: SqlObserver,
    /** The pool's name for the observer. */
    private readonly pool = 'primary',
  ) {}

  /** `work` in one transaction, run again from the start as the retry policy says. */
  transaction<T>(work: (tx: Tx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return this.retrying(() => this.once(work), options.idempotent);
  }

  /** One statement that commits by itself (MySQL's autocommit), retried like a transaction. */
  autocommit(sql: string, parameters: unknown[] = []): Promise<RunResult> {
    return this.retrying(() => this.single(sql, parameters));
  }

  private async retrying<T>(attempt: () => Promise<T>, idempotent = false): Promise<T> {
    const started = Date.now();
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        const wait = this.retry.pauseAfter(error, n, Date.now() - started, idempotent);
        if (wait === undefined) throw error;
        this.retry.options.onRetry?.(error, n);
        await pause(wait);
      }
    }
  }

  private async once<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const session = await this.sessions();
    const committed: (() => void)[] = [];
    const withCommit: Statement[] = [];
    let result: T;
    try {
      await this.send(session, session.begin);
      result = await work(this.txOf(session, committed, withCommit));
      // Where statements cannot go with the COMMIT, they go just before it.
      if (!session.batchesCommit) {
        for (const { sql, parameters } of withCommit.splice(0)) {
          await this.observed(sql, () => this.send(session, sql, parameters));
        }
      }
    } catch (error) {
      await this.abandon(session, error);
      throw error;
    }
    let answer;
    try {
      answer =
        withCommit.length === 0
          ? await this.send(session, 'COMMIT', [], true)
          : await this.observed(withCommit.map((w) => w.sql).join('; '), () =>
              this.send(
                session,
                [...withCommit.map((w) => w.sql), 'COMMIT'].join('; '),
                withCommit.flatMap((w) => w.parameters),
                true,
              ),
            );
    } catch (error) {
      throw await this.failedCommit(session, error);
    }
    this.letGo(session, answer.inTransaction);
    for (const callback of committed) {
      try {
        callback();
      } catch {
        // Told after the fact: the write has committed whatever the callback does.
      }
    }
    return result;
  }

  private async single(sql: string, parameters: unknown[]): Promise<RunResult> {
    const session = await this.sessions();
    const done = this.observe?.(sql, 'write', this.pool);
    try {
      const answer = await this.send(session, sql, parameters, true);
      done?.();
      this.letGo(session, answer.inTransaction);
      return answer.result;
    } catch (error) {
      done?.(error);
      throw await this.failedCommit(session, error);
    }
  }

  /** After a commit (or a clean ROLLBACK): back to the pool, unless a transaction is still open. */
  private letGo(session: TransactionSession, inTransaction: boolean | undefined): void {
    if (inTransaction === false || inTransaction === undefined) session.release();
    else session.destroy();
  }

  /**
   * After a failure before COMMIT: ROLLBACK, and the connection goes back to the pool only when
   * the server's answer says no transaction is open on it. A connection that is lost, past its
   * deadline, or whose ROLLBACK fails is ended instead (the server rolls back).
   */
  private async abandon(session: TransactionSession, error: unknown): Promise<void> {
    if (session.ended || session.lostBy(error)) return session.destroy();
    try {
      const { inTransaction } = await this.send(session, 'ROLLBACK');
      if (inTransaction === false) session.release();
      else session.destroy();
    } catch {
      session.destroy();
    }
  }

  /**
   * The error a failed COMMIT (or statement that commits by itself) is answered with: the
   * server's refusal, after which nothing was written (rolled back by the rules above); or, where
   * its answer was lost, CommitOutcomeUnknown.
   */
  private async failedCommit(session: TransactionSession, error: unknown): Promise<unknown> {
    if (session.ended || session.commitUncertain(error)) {
      session.destroy();
      return new CommitOutcomeUnknown(error);
    }
    await this.abandon(session, error);
    return error;
  }

  private txOf(
    session: TransactionSession,
    committed: (() => void)[],
    withCommit: Statement[],
  ): Tx {
    return {
      afterCommit: (callback) => void committed.push(callback),
      withCommit: (sql, parameters = []) => void withCommit.push({ sql, parameters }),
      run: async (sql, parameters = []) =>
        (await this.observed(sql, () => this.send(session, sql, parameters))).result,
    };
  }

  /** `send`, told to the observer as the statement `sql` (the work's statements, not BEGIN). */
  private async observed<A>(sql: string, send: () => Promise<A>): Promise<A> {
    const done = this.observe?.(sql, 'write', this.pool);
    try {
      const answer = await send();
      done?.();
      return answer;
    } catch (error) {
      done?.(error);
      throw error;
    }
  }

  /** One statement on `session`, through the test's fault injector where there is one. */
  private async send(
    session: TransactionSession,
    sql: string,
    parameters: unknown[] = [],
    committing = false,
  ) {
    const lost = this.faults?.(sql);
    const answer = await session.send(sql, parameters, committing);
    if (lost) throw lost;
    return answer;
  }
}
