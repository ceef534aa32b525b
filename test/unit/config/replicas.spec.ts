import { loadConfig } from '../../../src/config/configuration';
import { expectRefused } from './refused';

const MYSQL = 'mysql://app:pw@db:3306/records';

describe('read replica settings: replica URLs, read-after-write window, lag limit', () => {
  it('should have no replicas, a 2 s read-after-write window and a 5 s lag limit by default', () => {
    expect(loadConfig({ DATABASE_URL: MYSQL }).replicas).toEqual({
      urls: [],
      readAfterWrite: 2,
      maxLag: 5,
    });
  });

  it('should take comma-separated MySQL URLs, spaces and empty entries ignored', () => {
    const config = loadConfig({
      DATABASE_URL: MYSQL,
      DATABASE_REPLICA_URLS: ' mysql://app:pw@r1:3306/records, mariadb://app:pw@r2/records,',
      REPLICA_READ_AFTER_WRITE: '0.5',
      REPLICA_MAX_LAG: '30',
    });
    expect(config.replicas).toEqual({
      urls: ['mysql://app:pw@r1:3306/records', 'mysql://app:pw@r2/records'],
      readAfterWrite: 0.5,
      maxLag: 30,
    });
  });

  it.each([
    [
      { DATABASE_REPLICA_URLS: 'mysql://app:secret@r1/records' },
      'DATABASE_REPLICA_URLS needs a MySQL DATABASE_URL (replicas of its primary)',
    ],
    [
      { DATABASE_URL: MYSQL, DATABASE_REPLICA_URLS: 'mysql://app:secret@r1/records,sqlite:x.db' },
      'DATABASE_REPLICA_URLS entry 2 must be a mysql:// URL',
    ],
    [
      { DATABASE_URL: MYSQL, DATABASE_REPLICA_URLS: 'mysql://app:secret@r1:3306/' },
      'DATABASE_REPLICA_URLS entry 1 must name a database: mysql://user:password@host:3306/database',
    ],
    [
      { DATABASE_URL: MYSQL, REPLICA_READ_AFTER_WRITE: '-1' },
      'REPLICA_READ_AFTER_WRITE must be a number of seconds (0 for never), got "-1"',
    ],
    [
      { DATABASE_URL: MYSQL, REPLICA_MAX_LAG: '0' },
      'REPLICA_MAX_LAG must be a whole number of seconds from 1 to 9999, got "0"',
    ],
  ])('should refuse %j', (env, problem) => {
    expectRefused(env, problem);
  });
});
