import { loadConfig } from '../../../src/config/configuration';
import { describeDatabase } from '../../../src/config/database-url';
import { expectRefused } from './refused';

const CLUSTER = 'mysql://app:secret@h1:3306,h2:3307,h3/records?connectTimeout=2000';

describe('several nodes in DATABASE_URL (a Galera cluster)', () => {
  it('should keep one URL per node, in the order given, the first as the URL', () => {
    expect(loadConfig({ DATABASE_URL: CLUSTER }).database).toEqual({
      type: 'mysql',
      url: 'mysql://app:secret@h1:3306/records?connectTimeout=2000',
      database: 'records',
      nodes: [
        'mysql://app:secret@h1:3306/records?connectTimeout=2000',
        'mysql://app:secret@h2:3307/records?connectTimeout=2000',
        'mysql://app:secret@h3/records?connectTimeout=2000',
      ],
    });
  });

  it('should take mariadb:// and spaces around the hosts', () => {
    expect(loadConfig({ DATABASE_URL: 'mariadb://app@h1, h2/records' }).database).toEqual({
      type: 'mysql',
      url: 'mysql://app@h1/records',
      database: 'records',
      nodes: ['mysql://app@h1/records', 'mysql://app@h2/records'],
    });
  });

  it('should read CLUSTER_READS, causal by default, and refuse anything else', () => {
    expect(loadConfig({ DATABASE_URL: CLUSTER }).clusterReads).toBe('causal');
    expect(loadConfig({ CLUSTER_READS: 'after-write' }).clusterReads).toBe('after-write');
    expect(() => loadConfig({ CLUSTER_READS: 'eventual' })).toThrow(
      'CLUSTER_READS must be causal or after-write',
    );
  });

  it('should have no nodes with one host', () => {
    expect(loadConfig({ DATABASE_URL: 'mysql://app@h1/records' }).database).toEqual({
      type: 'mysql',
      url: 'mysql://app@h1/records',
      database: 'records',
    });
  });

  it('should describe every node without its password', () => {
    const database = loadConfig({ DATABASE_URL: CLUSTER }).database;
    expect(describeDatabase(database)).toBe(
      'mysql://app:***@h1:3306/records?connectTimeout=2000 ' +
        'mysql://app:***@h2:3307/records?connectTimeout=2000 ' +
        'mysql://app:***@h3/records?connectTimeout=2000',
    );
  });

  it.each([
    [
      { DATABASE_URL: 'mysql://app:secret@h1,,h3/records' },
      'DATABASE_URL has an empty host in its list (node 2)',
    ],
    [
      { DATABASE_URL: 'mysql://app:secret@h1,h2:99999/records' },
      'DATABASE_URL node 2 (h2:99999) must be sqlite:<file> or mysql://user:password@host:3306/database, got "mysql://app:***@h2:99999/records"',
    ],
    [
      { DATABASE_URL: 'mysql://app:secret@h1:3306,h1:3306/records' },
      'DATABASE_URL names h1:3306 twice',
    ],
    [
      { DATABASE_URL: 'mysql://app:secret@h1,h2/' },
      'DATABASE_URL node 1 (h1) must name a database: mysql://user:password@host:3306/database',
    ],
    [
      { DATABASE_URL: 'postgres://app:secret@h1,h2/records' },
      'DATABASE_URL node 1 (h1) has unsupported scheme "postgres:" (use sqlite: or mysql:)',
    ],
    [
      { DATABASE_URL: CLUSTER, DATABASE_REPLICA_URLS: 'mysql://app:secret@r1/records' },
      'DATABASE_REPLICA_URLS cannot be used with several nodes in DATABASE_URL (on a Galera cluster every node serves reads already)',
    ],
  ])('should refuse %j in one line, password hidden', (env, problem) => {
    expectRefused(env, problem);
  });
});
