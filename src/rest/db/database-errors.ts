const DEADLINE = 'DEADLINE_EXCEEDED';

/**
 * A database call the service gave up on at its own deadline: the server did not answer (frozen,
 * or the network to it is), and the connection was destroyed rather than returned to the pool.
 * `mayHaveCommitted`: the deadline passed while waiting for the answer to COMMIT, so the write may
 * have been saved (or not); anywhere earlier, it was not.
 */
export class DatabaseDeadline extends Error {
  readonly code = DEADLINE;
  constructor(
    readonly ms: number,
    readonly mayHaveCommitted: boolean,
  ) {
    super(`the database did not answer ${mayHaveCommitted ? 'COMMIT ' : ''}within ${ms} ms`);
  }
}

const ABANDONED = 'NODE_ABANDONED';

/**
 * A call on a node of a Galera cluster that the service gave up on because the node's check found
 * it gone (no answer within the check's deadline: frozen, cut off, dead) while the call waited:
 * its connection is destroyed, as at a deadline, without waiting out the call's own deadline.
 * Given up on while waiting for the answer to COMMIT, the write may have been saved (or not).
 */
export class NodeAbandoned extends Error {
  readonly code = ABANDONED;
  constructor(node: string, reason: string) {
    super(`${node} stopped answering (${reason}): the call on it was given up`);
  }
}

/**
 * A write whose COMMIT (or autocommitted statement) was sent and got no answer the service can
 * trust: the connection was lost or the deadline passed while waiting. The server may have
 * committed it or not; nobody can tell from here. Never retried: the client finds out (its
 * Idempotency-Key, or a read of the record) and decides.
 */
export class CommitOutcomeUnknown extends Error {
  readonly code = 'COMMIT_OUTCOME_UNKNOWN';
  constructor(readonly reason: unknown) {
    super(`no answer to COMMIT: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}

/** Whether a write failed while committing, so that it may have been saved. */
export function mayHaveCommitted(error: unknown): boolean {
  return (
    error instanceof CommitOutcomeUnknown ||
    (error instanceof DatabaseDeadline && error.mayHaveCommitted)
  );
}

/**
 * Codes of errors after which a connection cannot be trusted: it is gone (lost, refused, reset,
 * shut down) or the service gave up on it at its deadline. Whatever it had not committed, the
 * server rolls back when the connection ends.
 */
const ENDS_CONNECTION = new Set([
  DEADLINE,
  ABANDONED,
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'ENETUNREACH',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
]);

/**
 * Contention: a lock not granted (MySQL's lock wait timeout, 1205; a deadlock, 1213, after which
 * InnoDB has rolled the whole transaction back) or an SQLite file locked by another process.
 * Busy rather than broken: "try again".
 */
const CONTENTION = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY']);

/** Other codes of a database that cannot serve now: logins refused, its files, disk or memory. */
const RESOURCE = new Set([
  'ER_CON_COUNT_ERROR',
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'ER_ACCOUNT_HAS_BEEN_LOCKED',
  'ER_HOST_IS_BLOCKED',
  'ER_HOST_NOT_PRIVILEGED',
  'ER_MUST_CHANGE_PASSWORD_LOGIN',
  'ER_BAD_DB_ERROR',
  'SQLITE_CANTOPEN',
  'SQLITE_FULL',
  'SQLITE_NOMEM',
]);

/**
 * Error numbers of a server that refuses a new connection of the pool (a login), or is out of a
 * resource, by number: mysql2 names MySQL's codes, and gives MariaDB's own numbers the names of
 * unrelated MySQL errors (MariaDB's "account is locked", 4151, arrives as
 * ER_BULK_PARSER_INCOMPLETE_ESCAPE_SEQUENCE). Too many connections (1040, 1203, 1226), no access
 * to the database (1044, 1045, 1049), host blocked or not allowed (1129, 1130), password expired
 * (1820, 1862), account locked (MySQL 3118, MariaDB 4151); disk or table full (1021, 1114), out
 * of memory or threads (1037, 1041, 1135).
 */
const SERVER_REFUSED = new Set([
  1040, 1044, 1045, 1049, 1129, 1130, 1203, 1226, 1820, 1862, 3118, 4151, 1021, 1114, 1037, 1041,
  1135,
]);

/**
 * A Galera node out of the primary component (no quorum) or not ready: "WSREP has not yet
 * prepared node for application use" (1047, ER_UNKNOWN_COM_ERROR), on every statement.
 */
SERVER_REFUSED.add(1047);

/** The server ended the connection: shutting down (1053), killed by an operator (MariaDB 1927). */
const CONNECTION_ENDED = new Set([1053, 1927]);

/** A statement stopped by an operator (KILL QUERY, 1317): only the statement was undone. */
const INTERRUPTED = new Set([1317]);

/** What drivers and TypeORM say of a pool or connection that is closed or was never opened. */
const CLOSED =
  /connection (is )?closed|Pool is closed|closed state|database connection is not open|Connection is not established/i;

/**
 * The error for a write asked of a DataSource that was closed (its pool is gone): what mysql2
 * says of a closed pool, so that it is classified with it (unavailable: 503).
 */
export function poolClosed(): Error {
  return new Error('Pool is closed.');
}

/** The error and the driver errors it wraps (TypeORM's `driverError`), outermost first. */
interface Cause {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
  fatal?: unknown;
}

function* causes(error: unknown): Generator<Cause> {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    yield current as Cause;
    current = (current as { driverError?: unknown }).driverError;
  }
}

/** The driver's error code behind a TypeORM error (`ER_DUP_ENTRY`, `SQLITE_CONSTRAINT_UNIQUE`). */
export function errorCode(error: unknown): string {
  let found = '';
  for (const { code } of causes(error)) if (typeof code === 'string') found = code;
  return found;
}

/**
 * MariaDB's (1969, max_statement_time) and MySQL's (3024, MAX_EXECUTION_TIME) error numbers for
 * a statement cancelled at its time limit; mysql2 has no code name for MariaDB's.
 */
const TIMED_OUT = new Set([1969, 3024]);

/** Whether a statement was cancelled because it ran past the time limit. */
export function isStatementTimeout(error: unknown): boolean {
  for (const { errno } of causes(error)) if (TIMED_OUT.has(errno as number)) return true;
  return false;
}

/**
 * Whether the connection an error came from is to be destroyed, never reused: it was lost, the
 * server ended it, or the service gave up on it at its deadline (mysql2 marks an error that ends
 * a connection as fatal).
 */
export function endsConnection(error: unknown): boolean {
  for (const { code, errno, message, fatal } of causes(error)) {
    if (typeof code === 'string' && ENDS_CONNECTION.has(code)) return true;
    if (fatal === true) return true;
    if (CONNECTION_ENDED.has(errno as number)) return true;
    if (CLOSED.test(String(message))) return true;
  }
  return false;
}

/** Whether a statement waited for a lock in vain (lock wait timeout, deadlock, SQLite busy). */
export function isContention(error: unknown): boolean {
  for (const { code } of causes(error)) {
    if (typeof code === 'string' && (CONTENTION.has(code) || code.startsWith('SQLITE_BUSY'))) {
      return true;
    }
  }
  return false;
}

/**
 * Whether a transaction lost to a concurrent one: a deadlock (1213), which on a Galera cluster
 * is also a write-set that failed certification against another node's (at any statement or at
 * COMMIT). Either way the server rolled it back whole: nothing was written.
 */
export function isWriteConflict(error: unknown): boolean {
  for (const { code, errno } of causes(error)) {
    if (code === 'ER_LOCK_DEADLOCK' || errno === 1213) return true;
  }
  return false;
}

/**
 * Whether a Galera cluster refused a transaction as larger than its write-sets may be: more rows
 * than `wsrep_max_ws_rows` (1180 "wsrep_max_ws_rows exceeded", at the statement that passed it)
 * or more bytes than `wsrep_max_ws_size` (1105 "Maximum writeset size exceeded", at COMMIT). The
 * transaction was rolled back whole: nothing was written, and running it again would fail again.
 */
export function isWriteSetTooLarge(error: unknown): boolean {
  for (const { errno, message } of causes(error)) {
    if (errno === 1180 && /wsrep_max_ws_rows/.test(String(message))) return true;
    if (errno === 1105 && /writeset size/i.test(String(message))) return true;
  }
  return false;
}

/**
 * Whether a Galera node answered a COMMIT (or a statement that commits by itself) with "not
 * connected to the primary component": it lost the cluster's quorum while the write-set was being
 * replicated (1180, ER_ERROR_DURING_COMMIT: "Error while appending streaming replication fragment
 * (provider status: Not connected to Primary Component)"; older servers: 'Got error 6 "No such
 * device or address" during COMMIT'). The node rolled it back, but the other nodes may have
 * received the write-set before they lost this one: whether it was saved is unknown from here.
 */
export function isPrimaryLost(error: unknown): boolean {
  for (const { errno, message } of causes(error)) {
    if (errno === 1180 && /Primary Component|No such device or address/i.test(String(message)))
      return true;
  }
  return false;
}

/** Whether a statement was stopped before its end: killed (KILL QUERY) or over its time limit. */
export function isInterrupted(error: unknown): boolean {
  for (const { errno } of causes(error)) if (INTERRUPTED.has(errno as number)) return true;
  return isStatementTimeout(error);
}

/**
 * Whether an error means the database cannot serve now (503, try again), rather than a bug
 * (500): a connection that ended, contention, an interrupted statement, a server that refuses
 * logins or is out of a resource. (A COMMIT without an answer is CommitOutcomeUnknown: checked
 * first, it says more than "try again".)
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (endsConnection(error) || isContention(error) || isInterrupted(error)) return true;
  if (isPrimaryLost(error)) return true;
  for (const { code, errno } of causes(error)) {
    if (typeof code === 'string' && RESOURCE.has(code)) return true;
    if (SERVER_REFUSED.has(errno as number)) return true;
    // SQLite's I/O errors and their extended codes (SQLITE_IOERR_WRITE, …).
    if (typeof code === 'string' && code.startsWith('SQLITE_IOERR')) return true;
  }
  return false;
}
