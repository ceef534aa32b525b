import {
  isDatabaseUnavailable,
  isPrimaryLost,
  isWriteSetTooLarge,
  poolClosed,
} from '../../../../src/rest/db/database-errors';

/** An error as mysql2 makes it. */
function driverError(code: string, errno: number, fatal?: boolean): Error {
  return Object.assign(new Error(code), { code, errno, ...(fatal ? { fatal } : {}) });
}

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a lost connection', driverError('PROTOCOL_CONNECTION_LOST', 0, true)],
    ['a refused connection', driverError('ECONNREFUSED', 0)],
    [
      "MariaDB's locked account (4151, named after another error by mysql2)",
      driverError('ER_BULK_PARSER_INCOMPLETE_ESCAPE_SEQUENCE', 4151),
    ],
    ["MySQL's locked account", driverError('ER_ACCOUNT_HAS_BEEN_LOCKED', 3118)],
    ['access denied', driverError('ER_ACCESS_DENIED_ERROR', 1045)],
    ['too many connections of the user', driverError('ER_TOO_MANY_USER_CONNECTIONS', 1203)],
    ['a full table', driverError('ER_RECORD_FILE_FULL', 1114)],
    ['a killed connection (MariaDB)', driverError('ER_CONNECTION_KILLED', 1927)],
    ['any fatal error', driverError('ER_SOMETHING_NEW', 9999, true)],
    ['an SQLite I/O error', driverError('SQLITE_IOERR_WRITE', 778)],
    ['a full SQLite disk', driverError('SQLITE_FULL', 13)],
    ["mysql2's closed pool", new Error('Pool is closed.')],
    [
      'a Galera COMMIT refused without the primary component (1180, what a write met when two of three nodes were killed)',
      Object.assign(
        new Error(
          'Error while appending streaming replication fragment(provider status: Not connected to Primary Component)',
        ),
        { code: 'ER_ERROR_DURING_COMMIT', errno: 1180 },
      ),
    ],
    ['a write asked of a closed DataSource', poolClosed()],
    [
      'a driver error wrapped by TypeORM',
      Object.assign(new Error('Query failed'), { driverError: driverError('ETIMEDOUT', 0) }),
    ],
  ])('should take %s for "unavailable" (503)', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a syntax error (a bug)', driverError('ER_PARSE_ERROR', 1064)],
    ['an unknown column (a bug)', driverError('ER_BAD_FIELD_ERROR', 1054)],
    ['an SQLite constraint', driverError('SQLITE_CONSTRAINT_UNIQUE', 2067)],
    ['a plain error', new Error('boom')],
  ])('should not take %s for "unavailable"', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('isPrimaryLost', () => {
  const commitError = (message: string) =>
    Object.assign(new Error(message), { code: 'ER_ERROR_DURING_COMMIT', errno: 1180 });

  it('should take a COMMIT refused because the node left the primary component, in either wording', () => {
    expect(
      isPrimaryLost(
        commitError(
          'Error while appending streaming replication fragment(provider status: Not connected to Primary Component)',
        ),
      ),
    ).toBe(true);
    expect(
      isPrimaryLost(commitError('Got error 6 "No such device or address" during COMMIT')),
    ).toBe(true);
  });

  it('should not take the write-set limit (also 1180) or another COMMIT error for it', () => {
    const tooMany = commitError('wsrep_max_ws_rows exceeded');
    expect([isPrimaryLost(tooMany), isWriteSetTooLarge(tooMany)]).toEqual([false, true]);
    expect(isPrimaryLost(commitError('Got error 28 "No space left on device" during COMMIT'))).toBe(
      false,
    );
  });
});
