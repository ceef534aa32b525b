import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A request sent with an Idempotency-Key and, once done, its stored response, replayed for the same
 * key and request until `expires_at` (src/rest/sql/idempotency.ts reads and writes it;
 * migrations/1763900000000-safe-writes.ts).
 */
@Entity('idempotency_keys')
@Index('idx_idempotency_keys_expires_at', ['expires_at'])
export class IdempotencyKey {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  idempotency_key: string;

  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  /**
   * Empty in the rows this version writes (each is written once, finished, with its write).
   * Versions before it claimed a key ahead of its write: a random token here and no `status` yet.
   */
  @Column({ type: 'varchar', length: 36 })
  claim: string;

  @Column({ type: 'int', nullable: true })
  status: number | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  content_type: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  location: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  etag: string | null;

  /** MEDIUMBLOB on MySQL, BLOB on SQLite (entity-dialects.ts). */
  @Column({ type: 'mediumblob', nullable: true })
  body: Buffer | null;

  /** Milliseconds since the epoch. */
  @Column({ type: 'bigint' })
  expires_at: string;
}
