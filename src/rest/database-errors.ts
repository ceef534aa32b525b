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
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
]);

/** Whether an error means the database cannot be reached now (503), rather than a bug (500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    const { code, driverError } = current as { code?: unknown; driverError?: unknown };
    if (typeof code === 'string' && UNAVAILABLE.has(code)) return true;
    if (
      /connection (is )?closed|Pool is closed|Can't add new command when connection is in closed state/i.test(
        String((current as Error).message),
      )
    ) {
      return true;
    }
    current = driverError;
  }
  return false;
}
