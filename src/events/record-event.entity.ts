import { dialectEntity } from '../rest/sql/tables';

/**
 * One change of one record, added by the write in its own transaction; `position` is given once
 * it has committed (sequencer.ts). Read and written as plain SQL (change-recorder.ts,
 * event-store.ts); the entity describes the table for the schema check (migrations
 * 1764100000000-record-events.ts and 1764200000000-event-position-index.ts). `action`: `created`,
 * `updated` or `deleted`; `record`: the record as `show` renders it, as JSON, NULL for `deleted`
 * (MEDIUMBLOB on MySQL, BLOB on SQLite); `at`: milliseconds since the epoch.
 */
export const RecordEvent = dialectEntity('record_events', (dialect) => ({
  name: 'record_events',
  tableName: 'record_events',
  columns: {
    id: { type: 'int', primary: true, generated: 'increment' },
    position: { type: 'bigint', nullable: true },
    collection: { type: 'varchar', length: 64 },
    action: { type: 'varchar', length: 16 },
    record_id: { type: 'int' },
    record: { type: dialect === 'mysql' ? 'mediumblob' : 'blob', nullable: true },
    etag: { type: 'varchar', length: 100, nullable: true },
    at: { type: 'bigint' },
    request_id: { type: 'varchar', length: 255, nullable: true },
    actor: { type: 'varchar', length: 255, nullable: true },
  },
  indices: [{ name: 'idx_record_events_position', columns: ['position'] }],
}));

/**
 * The sequencer's lease and its progress: one row, `events`. `holder` sequences until
 * `expires_at` (milliseconds since the epoch); `last_position` is the highest position given,
 * `purged_through` the highest one deleted by retention.
 */
export const EventSequencerRow = dialectEntity('record_event_sequencer', () => ({
  name: 'record_event_sequencer',
  tableName: 'record_event_sequencer',
  columns: {
    name: { type: 'varchar', length: 32, primary: true },
    holder: { type: 'varchar', length: 64 },
    expires_at: { type: 'bigint' },
    last_position: { type: 'bigint' },
    purged_through: { type: 'bigint' },
  },
}));
