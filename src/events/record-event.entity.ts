import { dialectEntity } from '../rest/sql/tables';

/** An event's columns besides its id or position, in the outbox and in the feed alike. */
const eventColumns = (dialect: string) => ({
  collection: { type: 'varchar', length: 64 },
  action: { type: 'varchar', length: 16 },
  record_id: { type: 'int' },
  record: { type: dialect === 'mysql' ? 'mediumblob' : 'blob', nullable: true },
  etag: { type: 'varchar', length: 100, nullable: true },
  at: { type: 'bigint' },
  request_id: { type: 'varchar', length: 255, nullable: true },
  actor: { type: 'varchar', length: 255, nullable: true },
});

/** Their names, in order: what the recorder inserts and the sequencer copies. */
export const EVENT_COLUMNS = Object.keys(eventColumns('mysql'));

/**
 * The outbox: one change of one record, added by the write in its own transaction, until the
 * sequencer moves it into `record_events` with its position (sequencer.ts). `id` is the outbox
 * order. `action`: `created`, `updated` or `deleted`; `record`: the record as `show` renders it,
 * as JSON, NULL for `deleted` (MEDIUMBLOB on MySQL, BLOB on SQLite); `at`: milliseconds since the
 * epoch. Read and written as plain SQL (change-recorder.ts, sequencer.ts, event-store.ts); the
 * entities describe the tables for the schema check (migrations 1764100000000-record-events.ts
 * and 1764300000000-event-outbox.ts).
 */
export const RecordEventOutbox = dialectEntity('record_event_outbox', (dialect) => ({
  name: 'record_event_outbox',
  tableName: 'record_event_outbox',
  columns: {
    id: { type: 'int', primary: true, generated: 'increment' },
    ...eventColumns(dialect),
  },
}));

/**
 * The feed: the committed events, each with its `position` (dense: 1, 2, 3, ...), the cursor
 * and the primary key, and the id it had in the outbox (`outbox_id`). Appended to by the
 * sequencer, cut from its oldest end by retention.
 */
export const RecordEvent = dialectEntity('record_events', (dialect) => ({
  name: 'record_events',
  tableName: 'record_events',
  columns: {
    position: { type: 'bigint', primary: true },
    outbox_id: { type: 'int' },
    ...eventColumns(dialect),
  },
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
