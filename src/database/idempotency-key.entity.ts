import { dialectEntity } from '../rest/sql/tables';

/**
 * A request sent with an Idempotency-Key and, once done, its stored response, replayed for the same
 * key and request until `expires_at` (src/rest/sql/idempotency-store.ts reads and writes it;
 * migrations/1763900000000-safe-writes.ts creates it). Not a collection's table: its entity is
 * written here, with the one difference between the databases, MEDIUMBLOB on MySQL and BLOB on
 * SQLite. `claim` is empty in the rows this version writes (each is written once, finished, with
 * its write); versions before it claimed a key ahead of its write: a random token and no `status`.
 * `expires_at`: milliseconds since the epoch. `caller` (migrations/1764500000000-idempotency-caller.ts):
 * who sent the key, part of the primary key, so that each caller's keys are its own.
 */
export const IdempotencyKey = dialectEntity('idempotency_keys', (dialect) => ({
  name: 'idempotency_keys',
  tableName: 'idempotency_keys',
  columns: {
    caller: { type: 'varchar', length: 255, primary: true, default: '' },
    idempotency_key: { type: 'varchar', length: 255, primary: true },
    fingerprint: { type: 'varchar', length: 64 },
    claim: { type: 'varchar', length: 36 },
    status: { type: 'int', nullable: true },
    content_type: { type: 'varchar', length: 100, nullable: true },
    location: { type: 'varchar', length: 2048, nullable: true },
    etag: { type: 'varchar', length: 100, nullable: true },
    body: { type: dialect === 'mysql' ? 'mediumblob' : 'blob', nullable: true },
    expires_at: { type: 'bigint' },
  },
  indices: [{ name: 'idx_idempotency_keys_expires_at', columns: ['expires_at'] }],
}));
