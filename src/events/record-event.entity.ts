import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { IdentifiedRow } from '../database/entity-parts';

/**
 * One change of one record, added by the write in its own transaction; `position` is given once
 * it has committed (sequencer.ts). Read and written as plain SQL (change-recorder.ts,
 * event-store.ts); the entity describes the table for the schema check
 * (migrations/1764100000000-record-events.ts).
 */
@Entity('record_events')
@Index('uq_record_events_position', ['position'], { unique: true })
export class RecordEvent extends IdentifiedRow {
  @Column({ type: 'bigint', nullable: true })
  position: string | null;

  @Column({ type: 'varchar', length: 64 })
  collection: string;

  /** `created`, `updated` or `deleted`. */
  @Column({ type: 'varchar', length: 16 })
  action: string;

  @Column({ type: 'int' })
  record_id: number;

  /** The record as `show` renders it, as JSON; NULL for `deleted`. BLOB on SQLite. */
  @Column({ type: 'mediumblob', nullable: true })
  record: Buffer | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  etag: string | null;

  /** Milliseconds since the epoch. */
  @Column({ type: 'bigint' })
  at: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  request_id: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  actor: string | null;
}

/**
 * The sequencer's lease and its progress: one row, `events`. `holder` sequences until
 * `expires_at` (milliseconds since the epoch); `last_position` is the highest position given,
 * `purged_through` the highest one deleted by retention.
 */
@Entity('record_event_sequencer')
export class EventSequencerRow {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  name: string;

  @Column({ type: 'varchar', length: 64 })
  holder: string;

  @Column({ type: 'bigint' })
  expires_at: string;

  @Column({ type: 'bigint' })
  last_position: string;

  @Column({ type: 'bigint' })
  purged_through: string;
}
