/**
 * Moves committed events from the outbox (`record_event_outbox`) into the feed (`record_events`),
 * giving each its `position`, the feed's cursor: dense (1, 2, 3, ...), in the order of the outbox
 * id within each batch, each batch committed at once with the sequencer row's `last_position`.
 * docs/events.md argues why a reader of positions then never misses an event.
 *
 * A batch runs when a write of this instance that recorded events has committed (`nudge`, from
 * the transaction's after-commit callback), and otherwise on a slow poll by the one instance
 * holding the lease in `record_event_sequencer` (`holder` until `expires_at`, taken or renewed
 * by a conditional UPDATE): for the events whose writer crashed between its commit and its nudge,
 * or that were written from outside. Any instance may run a batch: correctness rests on the
 * sequencer row, which every batch locks first, reading `last_position` under that lock, so two
 * batches never overlap, whoever runs them. The lease only decides who polls; the holder also
 * purges events older than the retention, in bounded batches.
 */
import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { onPrimary } from '../rest/db/replicas';
import { batchWithin, SqlDatabase, Tx } from '../rest/db/sql-database';
import { SEQUENCER } from './event-store';
import { EVENT_COLUMNS } from './record-event.entity';

export interface SequencerOptions {
  /** How often the holder looks for events without a position, in ms (writes of this instance nudge). */
  everyMs: number;
  /** How long a lease lasts; it is renewed at half of it. */
  leaseMs: number;
  /** Events kept, in ms (EVENTS_RETENTION). */
  retentionMs: number;
  /** How often the holder purges, in ms. */
  purgeEveryMs: number;
  /**
   * The least time from the start of one round to the start of the next that writes nudge, in
   * ms: under load, the events committed meanwhile are positioned together, in one transaction,
   * rather than one round (six statements and a commit) for every few writes.
   */
  gapMs: number;
}

/** Most events positioned in one transaction, and most purged in one statement. */
export const SEQUENCE_BATCH = 500;
export const PURGE_BATCH = 1000;

export class Sequencer {
  readonly holder = `${hostname().slice(0, 20)}-${process.pid}-${randomUUID().slice(0, 8)}`;
  private timer?: NodeJS.Timeout;
  /** The next round that nudges asked for, once the gap since the last one has passed. */
  private pending?: NodeJS.Timeout;
  /** When the last round started (Date.now()). */
  private lastRound = 0;
  private leaseUntil = 0;
  private lastTry = 0;
  private lastPurge = 0;
  private running?: Promise<void>;
  /** A write committed events since the current round began sequencing. */
  private nudged = false;
  private stopped = false;
  /** stop() was called: no round is put off for the gap any more. */
  private stopping = false;

  constructor(
    private readonly db: SqlDatabase,
    private readonly options: SequencerOptions,
    /** Told of the highest position after each batch this instance gave. */
    private readonly onSequenced: (head: number) => void = () => undefined,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  start(): void {
    this.stopped = false;
    this.stopping = false;
    this.timer = setInterval(() => void this.tick(), this.options.everyMs);
    this.timer.unref();
  }

  /**
   * Stops polling, after a last round for the events that writes of this instance nudged and
   * that wait for the gap to pass: a clean shutdown leaves none of its own for the next poll.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    clearTimeout(this.pending);
    this.pending = undefined;
    await this.running;
    if (this.nudged && !this.stopped) await this.run(false);
    this.stopped = true;
    if (this.leaseUntil > Date.now()) {
      // Hand the lease over at once rather than let the others wait for it to expire.
      await this.db
        .write(
          `UPDATE ${this.q('record_event_sequencer')} SET ${this.q('expires_at')} = 0` +
            ` WHERE ${this.q('name')} = ? AND ${this.q('holder')} = ?`,
          [SEQUENCER, this.holder],
        )
        .catch(() => undefined);
      this.leaseUntil = 0;
    }
  }

  /** The poll's round, unless one is under way: lease, positions, and now and then the purge. */
  tick(): Promise<void> {
    return this.run(true);
  }

  /**
   * A write of this instance committed events: they are positioned soon, lease or not, in the
   * next round, which starts at once unless one started less than `gapMs` ago (then when the gap
   * has passed). Never more than one round at a time; a round's nudged events may have committed
   * after it read, so a nudge during a round asks for one more.
   */
  nudge(): void {
    if (this.stopped) return;
    this.nudged = true;
    if (!this.running) this.schedule();
  }

  /** The next round for nudged events: now, or once the gap since the last round has passed. */
  private schedule(): void {
    if (this.pending || this.stopped || this.stopping) return;
    const wait = this.lastRound + this.options.gapMs - Date.now();
    if (wait <= 0) {
      this.detached();
      return;
    }
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.detached();
    }, wait);
    this.pending.unref();
  }

  /**
   * A round started from outside the caller's async context (the committing request's): its
   * statements are not the request's, in traces, logs or the request's context.
   */
  private readonly detached = AsyncResource.bind(() => void this.run(false));

  private run(poll: boolean): Promise<void> {
    if (this.running || this.stopped) return this.running ?? Promise.resolve();
    this.lastRound = Date.now();
    this.running = this.round(poll)
      .catch((error) => this.onError(error))
      .finally(() => {
        this.running = undefined;
        // A nudge that came after the round's last look.
        if (this.nudged) this.schedule();
      });
    return this.running;
  }

  private async round(poll: boolean): Promise<void> {
    if (poll && (await this.lease())) {
      this.nudged = false;
      while ((await this.sequence()) === this.sequenceBatch() && !this.stopped);
      if (Date.now() - this.lastPurge >= this.options.purgeEveryMs) {
        this.lastPurge = Date.now();
        while ((await this.purge()) === this.purgeBatch() && !this.stopped);
      }
    }
    if (this.nudged && !this.stopped) {
      this.nudged = false;
      // Events are known to wait: no look first.
      while ((await this.sequence(false)) === this.sequenceBatch() && !this.stopped);
    }
  }

  /**
   * Events positioned, or purged, in one transaction: SEQUENCE_BATCH and PURGE_BATCH, fewer where
   * a Galera cluster's write-sets hold fewer rows (an event positioned is two: its row in the feed
   * and its row deleted from the outbox; the sequencer's own row is one more).
   */
  private sequenceBatch(): number {
    return Math.max(1, Math.floor(batchWithin(this.db, 2 * SEQUENCE_BATCH, 1) / 2));
  }

  private purgeBatch(): number {
    return batchWithin(this.db, PURGE_BATCH, 1);
  }

  /**
   * Whether this instance holds the lease now: renewed once half of it has passed; tried by the
   * others once per half lease (so only the holder polls often).
   */
  private async lease(): Promise<boolean> {
    const now = Date.now();
    const half = this.options.leaseMs / 2;
    if (this.leaseUntil - now > half) return true;
    if (this.leaseUntil <= now && now - this.lastTry < half) return false;
    this.lastTry = now;
    const { affected } = await this.db.write(
      `UPDATE ${this.q('record_event_sequencer')} SET ${this.q('holder')} = ?, ${this.q('expires_at')} = ?` +
        ` WHERE ${this.q('name')} = ? AND (${this.q('holder')} = ? OR ${this.q('expires_at')} < ?)`,
      [this.holder, now + this.options.leaseMs, SEQUENCER, this.holder, now],
    );
    this.leaseUntil = affected === 1 ? now + this.options.leaseMs : 0;
    return affected === 1;
  }

  /**
   * One batch: the committed events of the outbox, in outbox order, move into the feed with the
   * next positions. With `look`, a plain read first, so that an idle feed costs one lookup of an
   * empty table per poll.
   */
  async sequence(look = true): Promise<number> {
    if (look) {
      const waiting = await onPrimary(() =>
        this.db.query(`SELECT ${this.q('id')} FROM ${this.q('record_event_outbox')} LIMIT 1`),
      );
      if (waiting.length === 0) return 0;
    }
    const { count, head } = await this.db.transaction((tx) => this.assign(tx));
    if (count > 0) this.onSequenced(head);
    return count;
  }

  private async assign(tx: Tx): Promise<{ count: number; head: number }> {
    const lock = this.db.dialect === 'mysql' ? ' FOR UPDATE' : '';
    // The lock that serializes batches: taken before anything is read.
    const {
      rows: [row],
    } = await tx.run(
      `SELECT ${this.q('last_position')} AS head FROM ${this.q('record_event_sequencer')}` +
        ` WHERE ${this.q('name')} = ?${lock}`,
      [SEQUENCER],
    );
    const head = Number(row.head);
    const { rows } = await tx.run(
      `SELECT ${this.q('id')} AS id FROM ${this.q('record_event_outbox')}` +
        ` ORDER BY ${this.q('id')} LIMIT ${this.sequenceBatch()}`,
    );
    if (rows.length === 0) return { count: 0, head };
    const ids = rows.map((r) => Number(r.id));
    const list = ids.map(() => '?').join(', ');
    const cases = ids.map(() => 'WHEN ? THEN ?').join(' ');
    const { affected: moved } = await tx.run(
      `INSERT INTO ${this.q('record_events')} (${this.q('position')}, ${this.q('outbox_id')}, ${this.columns})` +
        ` SELECT CASE ${this.q('id')} ${cases} END, ${this.q('id')}, ${this.columns}` +
        ` FROM ${this.q('record_event_outbox')}` +
        ` WHERE ${this.q('id')} IN (${list})`,
      [...ids.flatMap((id, i) => [id, head + i + 1]), ...ids],
    );
    const { affected: removed } = await tx.run(
      `DELETE FROM ${this.q('record_event_outbox')} WHERE ${this.q('id')} IN (${list})`,
      ids,
    );
    if (moved !== ids.length || removed !== ids.length) {
      throw new Error(
        `sequencer: ${moved} of ${ids.length} events positioned, ${removed} taken from the outbox; rolled back`,
      );
    }
    const last = head + ids.length;
    await tx.run(
      `UPDATE ${this.q('record_event_sequencer')} SET ${this.q('last_position')} = ? WHERE ${this.q('name')} = ?`,
      [last, SEQUENCER],
    );
    return { count: ids.length, head: last };
  }

  /**
   * Deletes the oldest positioned events older than the retention, at most PURGE_BATCH, and
   * moves `purged_through` (a cursor at or past it stays valid; an older one is 410). Only a
   * prefix of positions is ever purged, so that what is kept has no holes.
   */
  async purge(now = Date.now()): Promise<number> {
    const cutoff = now - this.options.retentionMs;
    return this.db.transaction(async (tx) => {
      const lock = this.db.dialect === 'mysql' ? ' FOR UPDATE' : '';
      const {
        rows: [row],
      } = await tx.run(
        `SELECT ${this.q('purged_through')} AS purged FROM ${this.q('record_event_sequencer')}` +
          ` WHERE ${this.q('name')} = ?${lock}`,
        [SEQUENCER],
      );
      const { rows } = await tx.run(
        `SELECT ${this.q('position')} AS position, ${this.q('at')} AS at FROM ${this.q('record_events')}` +
          ` WHERE ${this.q('position')} > ? ORDER BY ${this.q('position')} LIMIT ${this.purgeBatch()}`,
        [Number(row.purged)],
      );
      let through = 0;
      let count = 0;
      for (const event of rows) {
        if (Number(event.at) >= cutoff) break;
        through = Number(event.position);
        count++;
      }
      if (count === 0) return 0;
      await tx.run(
        `DELETE FROM ${this.q('record_events')} WHERE ${this.q('position')} <= ? AND ${this.q('position')} > ?`,
        [through, Number(row.purged)],
      );
      await tx.run(
        `UPDATE ${this.q('record_event_sequencer')} SET ${this.q('purged_through')} = ? WHERE ${this.q('name')} = ?`,
        [through, SEQUENCER],
      );
      return count;
    });
  }

  private q(name: string): string {
    return this.db.quote(name);
  }

  /** An event's columns, quoted once: copied from the outbox into the feed. */
  private readonly columns = EVENT_COLUMNS.map((c) => this.db.quote(c)).join(', ');
}
