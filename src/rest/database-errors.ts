const UNAVAILABLE = new Set([
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
  'ER_BAD_DB_ERROR',
  // Still contended after the retries: busy rather than broken, so "try again".
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
]);

/** What drivers and TypeORM say of a pool or connection that is closed or was never opened. */
const CLOSED =
  /connection (is )?closed|Pool is closed|closed state|database connection is not open|Connection is not established/i;

/** Whether an error means the database cannot serve now (503, try again), rather than a bug (500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    const { code, driverError } = current as { code?: unknown; driverError?: unknown };
    if (typeof code === 'string' && UNAVAILABLE.has(code)) return true;
    if (CLOSED.test(String((current as Error).message))) return true;
    current = driverError;
  }
  return false;
}
