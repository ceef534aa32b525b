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

/** Whether a write failed at its deadline while committing: it may have been saved. */
export function mayHaveCommitted(error: unknown): boolean {
  return error instanceof DatabaseDeadline && error.mayHaveCommitted;
}

const UNAVAILABLE = new Set([
  DEADLINE,
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'ER_ACCOUNT_HAS_BEEN_LOCKED',
  'ER_HOST_IS_BLOCKED',
  'ER_HOST_NOT_PRIVILEGED',
  'ER_MUST_CHANGE_PASSWORD_LOGIN',
  'ER_BAD_DB_ERROR',
  'ENETUNREACH',
  'EAI_AGAIN',
  // Still contended after the retries: busy rather than broken, so "try again".
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  // The disk or the memory, not the request: full, failing, exhausted.
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
 * of memory or threads (1037, 1041, 1135), the statement or connection killed by an operator
 * (1317, MariaDB 1927).
 */
const SERVER_REFUSED = new Set([
  1040, 1044, 1045, 1049, 1129, 1130, 1203, 1226, 1820, 1862, 3118, 4151, 1021, 1114, 1037, 1041,
  1135, 1317, 1927,
]);

/**
 * A Galera node out of the primary component (no quorum) or not ready: "WSREP has not yet
 * prepared node for application use" (1047, ER_UNKNOWN_COM_ERROR), on every statement.
 */
SERVER_REFUSED.add(1047);

/** What drivers and TypeORM say of a pool or connection that is closed or was never opened. */
const CLOSED =
  /connection (is )?closed|Pool is closed|closed state|database connection is not open|Connection is not established/i;

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

/** Whether an error means the database cannot serve now (503, try again), rather than a bug (500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const { code, errno, message, fatal } of causes(error)) {
    if (typeof code === 'string' && UNAVAILABLE.has(code)) return true;
    // mysql2 marks an error that ends a connection as fatal: the database, not the statement,
    // is the problem.
    if (fatal === true) return true;
    if (SERVER_REFUSED.has(errno as number)) return true;
    // SQLite's I/O errors and their extended codes (SQLITE_IOERR_WRITE, …).
    if (typeof code === 'string' && code.startsWith('SQLITE_IOERR')) return true;
    if (CLOSED.test(String(message))) return true;
  }
  return false;
}
