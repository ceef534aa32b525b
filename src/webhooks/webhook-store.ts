/**
 * The webhooks' tables as plain SQL (webhook.entity.ts says what each column holds): the
 * subscriptions with their delivery state and leases, and their latest delivery attempts.
 * Every read goes to the primary (the writer of a Galera cluster): a replica may be behind a
 * change just made, and the lease and the cursor must be read where they are written.
 */
import { onPrimary } from '../rest/db/replicas';
import { Row, SqlDatabase } from '../rest/db/sql-database';

export type Status = 'active' | 'disabled';

export interface Subscription {
  id: number;
  url: string;
  description: string;
  /** Plural names; null for every collection. */
  collections: string[] | null;
  /** `created`, `updated`, `deleted`; null for every action. */
  actions: string[] | null;
  status: Status;
  disabledReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: number | null;
  createdAt: number;
  updatedAt: number;
  /** The position of the last event delivered or given up. */
  lastEvent: number;
  attempt: number;
  nextAttemptAt: number;
  epoch: number;
  holder: string;
  leaseUntil: number;
}

/** What a subscription's owner sets. */
export interface Settings {
  url: string;
  description: string;
  collections: string[] | null;
  actions: string[] | null;
}

/** Where a subscription's delivery stands: what the holder saves. */
export interface Progress {
  lastEvent: number;
  attempt: number;
  nextAttemptAt: number;
}

export type Outcome = 'delivered' | 'failed' | 'given_up' | 'disabled' | 'skipped';

/** One delivery attempt, as kept. */
export interface Attempt {
  subscriptionId: number;
  eventId: number;
  attempt: number;
  at: number;
  statusCode: number | null;
  error: string | null;
  outcome: Outcome;
  nextAttemptAt: number | null;
  durationMs: number;
}

/** Attempts kept per subscription: the newest. */
export const KEPT_ATTEMPTS = 50;

/**
 * Deliveries written per save (a second's at most): under load, the newest of them; failures,
 * give-ups and the rest are always written (they save at once, one at a time).
 */
export const SAVED_DELIVERIES = 10;

const SUBSCRIPTIONS = 'webhook_subscriptions';
const DELIVERIES = 'webhook_deliveries';

export class WebhookStore {
  constructor(readonly db: SqlDatabase) {}

  private q(name: string): string {
    return this.db.quote(name);
  }

  private read(sql: string, parameters: unknown[] = []): Promise<Row[]> {
    return onPrimary(() => this.db.query(sql, parameters));
  }

  async list(): Promise<Subscription[]> {
    const rows = await this.read(`SELECT * FROM ${this.q(SUBSCRIPTIONS)} ORDER BY ${this.q('id')}`);
    return rows.map(toSubscription);
  }

  async get(id: number): Promise<Subscription | undefined> {
    const [row] = await this.read(
      `SELECT * FROM ${this.q(SUBSCRIPTIONS)} WHERE ${this.q('id')} = ?`,
      [id],
    );
    return row ? toSubscription(row) : undefined;
  }

  /** The active subscriptions `holder` holds. */
  async held(holder: string): Promise<Subscription[]> {
    const rows = await this.read(
      `SELECT * FROM ${this.q(SUBSCRIPTIONS)} WHERE ${this.q('holder')} = ? AND ${this.q('status')} = 'active'` +
        ` ORDER BY ${this.q('id')}`,
      [holder],
    );
    return rows.map(toSubscription);
  }

  /** How many subscriptions are active and disabled. */
  async counts(): Promise<Record<Status, number>> {
    const rows = await this.read(
      `SELECT ${this.q('status')} AS status, COUNT(*) AS n FROM ${this.q(SUBSCRIPTIONS)} GROUP BY ${this.q('status')}`,
    );
    const counts: Record<Status, number> = { active: 0, disabled: 0 };
    for (const row of rows) counts[row.status as Status] = Number(row.n);
    return counts;
  }

  /** A new active subscription, delivering after `lastEvent`, held by `holder` until `until`. */
  async create(
    settings: Settings,
    secret: string,
    lastEvent: number,
    now: number,
    holder: string,
    until: number,
  ): Promise<number> {
    const { insertId } = await this.db.write(
      `INSERT INTO ${this.q(SUBSCRIPTIONS)} (${[
        'url',
        'description',
        'collections',
        'actions',
        'status',
        'disabled_reason',
        'secret',
        'previous_secret',
        'previous_secret_until',
        'created_at',
        'updated_at',
        'last_event',
        'attempt',
        'next_attempt_at',
        'epoch',
        'holder',
        'lease_until',
      ]
        .map((c) => this.q(c))
        .join(', ')}) VALUES (?, ?, ?, ?, 'active', NULL, ?, NULL, NULL, ?, ?, ?, 0, 0, 0, ?, ?)`,
      [
        settings.url,
        settings.description,
        names(settings.collections),
        names(settings.actions),
        secret,
        now,
        now,
        lastEvent,
        holder,
        until,
      ],
    );
    return insertId;
  }

  /** Changes what the owner set, and the status; false when there is no such subscription. */
  async update(
    id: number,
    changes: Partial<Settings> & { status?: Status },
    now: number,
  ): Promise<boolean> {
    const sets: string[] = [];
    const values: unknown[] = [];
    const set = (column: string, value: unknown) => {
      sets.push(`${this.q(column)} = ?`);
      values.push(value);
    };
    if (changes.url !== undefined) set('url', changes.url);
    if (changes.description !== undefined) set('description', changes.description);
    if (changes.collections !== undefined) set('collections', names(changes.collections));
    if (changes.actions !== undefined) set('actions', names(changes.actions));
    if (changes.status !== undefined) {
      set('status', changes.status);
      // Enabled again: its attempts start over, at once; disabled by hand: said so.
      if (changes.status === 'active') {
        set('disabled_reason', null);
        set('attempt', 0);
        set('next_attempt_at', 0);
        sets.push(`${this.q('epoch')} = ${this.q('epoch')} + 1`);
      } else {
        set('disabled_reason', 'disabled through the API');
      }
    }
    set('updated_at', now);
    const { affected } = await this.db.write(
      `UPDATE ${this.q(SUBSCRIPTIONS)} SET ${sets.join(', ')} WHERE ${this.q('id')} = ?`,
      [...values, id],
    );
    return affected === 1 || (await this.get(id)) !== undefined;
  }

  /** Deletes a subscription and its attempts; false when there was none. */
  remove(id: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await tx.run(`DELETE FROM ${this.q(DELIVERIES)} WHERE ${this.q('subscription_id')} = ?`, [
        id,
      ]);
      const { affected } = await tx.run(
        `DELETE FROM ${this.q(SUBSCRIPTIONS)} WHERE ${this.q('id')} = ?`,
        [id],
      );
      return affected === 1;
    });
  }

  /**
   * Delivery goes on after `after`: the events after it are sent again, in order, attempts
   * starting over. `epoch` moves, so that the holder's next save (of where it was) is refused and
   * it reads this position instead.
   */
  async replay(id: number, after: number, now: number): Promise<boolean> {
    const { affected } = await this.db.write(
      `UPDATE ${this.q(SUBSCRIPTIONS)} SET ${this.q('last_event')} = ?, ${this.q('attempt')} = 0,` +
        ` ${this.q('next_attempt_at')} = 0, ${this.q('epoch')} = ${this.q('epoch')} + 1, ${this.q('updated_at')} = ?` +
        ` WHERE ${this.q('id')} = ?`,
      [after, now, id],
    );
    return affected === 1;
  }

  /** A new secret; the one it replaces signs too until `graceUntil`. */
  async rotate(id: number, secret: string, graceUntil: number, now: number): Promise<boolean> {
    const { affected } = await this.db.write(
      `UPDATE ${this.q(SUBSCRIPTIONS)} SET ${this.q('previous_secret')} = ${this.q('secret')},` +
        ` ${this.q('previous_secret_until')} = ?, ${this.q('secret')} = ?, ${this.q('updated_at')} = ?` +
        ` WHERE ${this.q('id')} = ?`,
      [graceUntil, secret, now, id],
    );
    return affected === 1;
  }

  /** The newest attempts of a subscription, newest first. */
  async attempts(id: number, limit = KEPT_ATTEMPTS): Promise<Attempt[]> {
    const rows = await this.read(
      `SELECT * FROM ${this.q(DELIVERIES)} WHERE ${this.q('subscription_id')} = ?` +
        ` ORDER BY ${this.q('id')} DESC LIMIT ${Math.trunc(limit)}`,
      [id],
    );
    return rows.map(toAttempt);
  }

  // -------------------------------------------------------------------------------------------
  // The holder's side

  /**
   * Takes the active subscriptions nobody holds (a lease that has run out, or a new one), and
   * with `renew` extends the leases `holder` has: one statement. Returns the rows it changed.
   */
  async claim(holder: string, now: number, until: number, renew: boolean): Promise<number> {
    const mine = renew ? ` OR ${this.q('holder')} = ?` : '';
    const { affected } = await this.db.write(
      `UPDATE ${this.q(SUBSCRIPTIONS)} SET ${this.q('holder')} = ?, ${this.q('lease_until')} = ?` +
        ` WHERE ${this.q('status')} = 'active' AND (${this.q('lease_until')} < ?${mine})`,
      renew ? [holder, until, now, holder] : [holder, until, now],
    );
    return affected;
  }

  /** Hands `holder`'s leases back at once (a clean stop): another instance takes them now. */
  async release(holder: string): Promise<void> {
    await this.db.write(
      `UPDATE ${this.q(SUBSCRIPTIONS)} SET ${this.q('lease_until')} = 0 WHERE ${this.q('holder')} = ?`,
      [holder],
    );
  }

  /**
   * Saves where delivery stands and the attempts made since the last save, and keeps the newest
   * KEPT_ATTEMPTS: only while `holder` holds the subscription in `epoch` (false otherwise: a
   * replay moved it, or another instance took it). `disable`: the subscription is disabled too.
   */
  save(
    id: number,
    holder: string,
    epoch: number,
    progress: Progress,
    attempts: readonly Attempt[],
    disable?: string,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const disabling = disable
        ? `, ${this.q('status')} = 'disabled', ${this.q('disabled_reason')} = ?, ${this.q('updated_at')} = ?`
        : '';
      const { affected } = await tx.run(
        `UPDATE ${this.q(SUBSCRIPTIONS)} SET ${this.q('last_event')} = ?, ${this.q('attempt')} = ?,` +
          ` ${this.q('next_attempt_at')} = ?${disabling}` +
          ` WHERE ${this.q('id')} = ? AND ${this.q('holder')} = ? AND ${this.q('epoch')} = ?`,
        [
          progress.lastEvent,
          progress.attempt,
          progress.nextAttemptAt,
          ...(disable ? [disable.slice(0, 255), Date.now()] : []),
          id,
          holder,
          epoch,
        ],
      );
      if (affected !== 1) return false;
      const kept = [
        ...attempts.filter((a) => a.outcome !== 'delivered'),
        ...attempts.filter((a) => a.outcome === 'delivered').slice(-SAVED_DELIVERIES),
      ]
        .sort((a, b) => a.at - b.at)
        .slice(-KEPT_ATTEMPTS);
      if (kept.length === 0) return true;
      await tx.run(
        `INSERT INTO ${this.q(DELIVERIES)} (${[
          'subscription_id',
          'event_id',
          'attempt',
          'at',
          'status_code',
          'error',
          'outcome',
          'next_attempt_at',
          'duration_ms',
        ]
          .map((c) => this.q(c))
          .join(', ')}) VALUES ${kept.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        kept.flatMap((a) => [
          a.subscriptionId,
          a.eventId,
          a.attempt,
          a.at,
          a.statusCode,
          a.error?.slice(0, 255) ?? null,
          a.outcome,
          a.nextAttemptAt,
          a.durationMs,
        ]),
      );
      const {
        rows: [oldest],
      } = await tx.run(
        `SELECT ${this.q('id')} AS id FROM ${this.q(DELIVERIES)} WHERE ${this.q('subscription_id')} = ?` +
          ` ORDER BY ${this.q('id')} DESC LIMIT 1 OFFSET ${KEPT_ATTEMPTS - 1}`,
        [id],
      );
      if (oldest) {
        await tx.run(
          `DELETE FROM ${this.q(DELIVERIES)} WHERE ${this.q('subscription_id')} = ? AND ${this.q('id')} < ?`,
          [id, Number(oldest.id)],
        );
      }
      return true;
    });
  }
}

function names(list: string[] | null): string | null {
  return list === null ? null : list.join(',');
}

function list(value: unknown): string[] | null {
  return value === null || value === undefined || value === '' ? null : String(value).split(',');
}

function toSubscription(row: Row): Subscription {
  const num = (value: unknown) => Number(value ?? 0);
  return {
    id: num(row.id),
    url: String(row.url),
    description: String(row.description ?? ''),
    collections: list(row.collections),
    actions: list(row.actions),
    status: row.status === 'disabled' ? 'disabled' : 'active',
    disabledReason: (row.disabled_reason as string | null) ?? null,
    secret: String(row.secret),
    previousSecret: (row.previous_secret as string | null) ?? null,
    previousSecretUntil:
      row.previous_secret_until === null || row.previous_secret_until === undefined
        ? null
        : num(row.previous_secret_until),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
    lastEvent: num(row.last_event),
    attempt: num(row.attempt),
    nextAttemptAt: num(row.next_attempt_at),
    epoch: num(row.epoch),
    holder: String(row.holder ?? ''),
    leaseUntil: num(row.lease_until),
  };
}

function toAttempt(row: Row): Attempt {
  return {
    subscriptionId: Number(row.subscription_id),
    eventId: Number(row.event_id),
    attempt: Number(row.attempt),
    at: Number(row.at),
    statusCode: row.status_code === null ? null : Number(row.status_code),
    error: (row.error as string | null) ?? null,
    outcome: row.outcome as Outcome,
    nextAttemptAt: row.next_attempt_at === null ? null : Number(row.next_attempt_at),
    durationMs: Number(row.duration_ms),
  };
}
