/**
 * Migration 1764500000000 (idempotency keys belong to their caller) on a database that already
 * holds stored responses: they keep their keys and answers, with the empty caller (no
 * credentials); afterwards one key may be stored once per caller, and once only for each. Its
 * `down` keeps one row per key. On the test runner's database kind: SQLite (a file of its own) or
 * MySQL (a database of its own on TEST_MYSQL_URL's server).
 */
import { MIGRATIONS } from '../../sources';
import { useMigrationDatabase } from '../support/migration-database';

/** A stored response's row, as the versions before the migration wrote it. */
const stored = (key: string, expiresAt: number) => ({
  idempotency_key: key,
  fingerprint: 'f'.repeat(64),
  claim: '',
  status: 201,
  content_type: 'application/json; charset=utf-8',
  location: `http://localhost/api/demo/marbles/${key.length}`,
  etag: '"1.1"',
  expires_at: expiresAt,
});

describe('migration 1764500000000: idempotency keys belong to their caller', () => {
  const db = useMigrationDatabase('idemmigration', 'IdempotencyCaller1764500000000');
  const q = (name: string) => db.q(name);
  const insert = (values: Record<string, unknown>) => {
    const keys = Object.keys(values);
    return db.dataSource.query(
      `INSERT INTO ${q('idempotency_keys')} (${keys.map(q).join(', ')})` +
        ` VALUES (${keys.map(() => '?').join(', ')})`,
      Object.values(values),
    );
  };
  const rows = async (columns: string[]) =>
    (
      (await db.dataSource.query(
        `SELECT ${columns.map(q).join(', ')} FROM ${q('idempotency_keys')}` +
          ` ORDER BY ${columns.map(q).join(', ')}`,
      )) as Record<string, unknown>[]
    ).map((row) => columns.map((column) => String(row[column])));

  it('should keep the stored responses under the empty caller and take a key once per caller', async () => {
    await insert(stored('key-a', 2_000_000_000_000));
    await insert(stored('key-bb', 2_000_000_000_001));
    await db.migrateWith(MIGRATIONS.slice(0, db.at + 1));
    await db.dataSource.runMigrations();

    expect(await rows(['caller', 'idempotency_key', 'status', 'location', 'expires_at'])).toEqual([
      ['', 'key-a', '201', 'http://localhost/api/demo/marbles/5', '2000000000000'],
      ['', 'key-bb', '201', 'http://localhost/api/demo/marbles/6', '2000000000001'],
    ]);
    await insert({ caller: 'sub:admin', ...stored('key-a', 2_000_000_000_002) });
    await insert({ caller: 'api-token', ...stored('key-a', 2_000_000_000_003) });
    await expect(
      insert({ caller: 'sub:admin', ...stored('key-a', 2_000_000_000_004) }),
    ).rejects.toThrow(/UNIQUE|Duplicate/);
    await expect(insert(stored('key-bb', 2_000_000_000_005))).rejects.toThrow(/UNIQUE|Duplicate/);
    expect(await rows(['caller', 'idempotency_key'])).toEqual([
      ['', 'key-a'],
      ['', 'key-bb'],
      ['api-token', 'key-a'],
      ['sub:admin', 'key-a'],
    ]);
  });

  it('should keep the first stored row of each key when reverted', async () => {
    await db.dataSource.undoLastMigration();
    expect(await rows(['idempotency_key', 'expires_at'])).toEqual([
      ['key-a', '2000000000000'],
      ['key-bb', '2000000000001'],
    ]);
    await expect(insert(stored('key-a', 2_000_000_000_006))).rejects.toThrow(/UNIQUE|Duplicate/);
  });
});
