/**
 * The feed's reads of `record_events`, of the outbox and of the sequencer's row, and the event
 * as consumers see it (CONTRACT: id, collection, action, record_id, record, etag, at,
 * request_id, actor). A cursor is the decimal `position` of the last event seen; `0` is "before
 * the oldest event kept".
 */
import { afterOwnWrite, onPrimary } from '../rest/db/replicas';
import { Row, SqlDatabase } from '../rest/db/sql-database';
import { placeholders } from '../rest/sql/record-query';

export const SEQUENCER = 'events';

/** What a consumer receives. `record` and `etag` are absent for `deleted`. */
export interface FeedEvent {
  id: string;
  collection: string;
  action: string;
  record_id: number;
  record?: unknown;
  etag?: string;
  at: string;
  request_id: string | null;
  actor: string | null;
}

/** An event as read, with its position for the readers. */
export interface StoredEvent {
  position: number;
  collection: string;
  event: FeedEvent;
}

/** Where the feed stands: the highest position given, the highest one purged. */
export interface FeedBounds {
  head: number;
  purgedThrough: number;
}

/** A cursor as a client sends it: digits, no sign, no leading zero; else undefined. */
export function parseCursor(raw: string): number | undefined {
  if (!/^(0|[1-9]\d{0,14})$/.test(raw)) return undefined;
  return Number(raw);
}

export class EventStore {
  constructor(private readonly db: SqlDatabase) {}

  private q(name: string): string {
    return this.db.quote(name);
  }

  /** Read on the primary: a replica's answer could be older than a cursor a client holds. */
  private read(sql: string, parameters: unknown[]): Promise<Row[]> {
    return onPrimary(() => this.db.query(sql, parameters));
  }

  /**
   * The sequencer's row, read on the primary (the writer of a Galera cluster). `settled`: read
   * so that it reflects every commit the cluster certified, wherever it was made (a causal read,
   * `wsrep_sync_wait`, on a Galera cluster; the primary elsewhere): a writer that took over
   * moments ago may not have applied the newest positions yet.
   */
  async bounds(settled = false): Promise<FeedBounds> {
    const sql =
      `SELECT ${this.q('last_position')} AS head, ${this.q('purged_through')} AS purged` +
      ` FROM ${this.q('record_event_sequencer')} WHERE ${this.q('name')} = ?`;
    const [row] = settled
      ? await afterOwnWrite(() => this.db.query(sql, [SEQUENCER]))
      : await this.read(sql, [SEQUENCER]);
    return { head: Number(row?.head ?? 0), purgedThrough: Number(row?.purged ?? 0) };
  }

  /**
   * The highest outbox id among the committed events that have no position yet (still in the
   * outbox), or undefined when every committed event has one.
   */
  async unpositioned(): Promise<number | undefined> {
    const [row] = await this.read(
      `SELECT MAX(${this.q('id')}) AS id FROM ${this.q('record_event_outbox')}`,
      [],
    );
    return row?.id === null || row?.id === undefined ? undefined : Number(row.id);
  }

  /** Whether an event with an outbox id up to `id` still waits for its position. */
  async waiting(id: number): Promise<boolean> {
    const rows = await this.read(
      `SELECT ${this.q('id')} FROM ${this.q('record_event_outbox')} WHERE ${this.q('id')} <= ? LIMIT 1`,
      [id],
    );
    return rows.length > 0;
  }

  /**
   * The events with a position in (after, through], in order, at most `limit`, of `collections`
   * only when given.
   */
  async after(
    after: number,
    limit: number,
    through?: number,
    collections?: readonly string[],
  ): Promise<StoredEvent[]> {
    const position = this.q('position');
    const parameters: unknown[] = [after];
    let where = `${position} > ?`;
    if (through !== undefined) {
      where += ` AND ${position} <= ?`;
      parameters.push(through);
    }
    if (collections) {
      where += ` AND ${this.q('collection')} IN (${placeholders(collections.length)})`;
      parameters.push(...collections);
    }
    const rows = await this.read(
      `SELECT ${['position', 'collection', 'action', 'record_id', 'record', 'etag', 'at', 'request_id', 'actor'].map((c) => this.q(c)).join(', ')}` +
        ` FROM ${this.q('record_events')} WHERE ${where} ORDER BY ${position} LIMIT ${Math.trunc(limit)}`,
      parameters,
    );
    return rows.map(toStored);
  }
}

function toStored(row: Row): StoredEvent {
  const position = Number(row.position);
  const collection = String(row.collection);
  const present = (value: unknown) => value !== null && value !== undefined;
  const event: FeedEvent = {
    id: String(position),
    collection,
    action: String(row.action),
    record_id: Number(row.record_id),
    ...(present(row.record)
      ? { record: JSON.parse(Buffer.from(row.record as Uint8Array).toString('utf8')) as unknown }
      : {}),
    ...(present(row.etag) ? { etag: String(row.etag) } : {}),
    at: new Date(Number(row.at)).toISOString(),
    request_id: (row.request_id as string | null) ?? null,
    actor: (row.actor as string | null) ?? null,
  };
  return { position, collection, event };
}
