/**
 * Delivers the change feed to the webhook subscriptions (docs/webhooks.md). Each instance runs
 * one dispatcher; a subscription is delivered by the instance that holds its lease (`holder`
 * until `lease_until` in its row, taken by a conditional UPDATE, like the sequencer's), so one
 * instance at a time delivers it. An instance that dies stops renewing; another takes the lease
 * once it has run out (LEASE_MS, tried every TICK_MS) and goes on from the saved position.
 *
 * Per subscription, events go in feed order, one at a time: the next is sent once the one before
 * was delivered (a 2xx within WEBHOOK_TIMEOUT) or given up (after the last delay of
 * WEBHOOK_RETRY_SCHEDULE); a 410 disables the subscription. Where delivery stands is saved at
 * most SAVE_EVERY_MS after a delivery, at once after a failure, a give-up or a 410: an instance
 * that dies sends again, to whoever takes over, what it delivered since its last save (at least
 * once: a repeat has the same `webhook-id`), never skips.
 *
 * The feed is read once for every subscription of the instance (EventWindow: the newest events,
 * kept in memory), and each subscription waits for its own endpoint only: one that is down or
 * slow holds nothing else, neither the other subscriptions nor the writes (nothing of the
 * outbox or of the sequencer waits for a delivery).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { EventStore, StoredEvent } from '../events/event-store';
import { Connections, Outcome, post } from './sender';
import { secretKey, signatures } from './signature';
import { Resolver, TargetRefused, parseTarget } from './targets';
import { Attempt, Outcome as Result, Progress, Subscription, WebhookStore } from './webhook-store';

export interface DispatchTiming {
  /** How long a lease lasts, in ms; renewed once half of it has passed. */
  leaseMs: number;
  /** How often the dispatcher takes free subscriptions and reads changes of its own, in ms. */
  tickMs: number;
  /** Most time from a delivery to the save of the position, in ms. */
  saveEveryMs: number;
  /** How often the feed is read while subscriptions are delivered, in ms (nudged on commit). */
  pollMs: number;
}

export const DEFAULT_DISPATCH_TIMING: DispatchTiming = {
  leaseMs: 10_000,
  tickMs: 1_000,
  saveEveryMs: 1_000,
  pollMs: 100,
};

export interface DispatchOptions extends DispatchTiming {
  timeoutMs: number;
  retryScheduleMs: readonly number[];
  allowPrivate: boolean;
  /** `User-Agent` of the deliveries. */
  userAgent: string;
}

/** What the metrics hear of each attempt. */
export interface DispatchObserver {
  attempted(outcome: Result): void;
  /** A delivery, `lagMs` after its event was written. */
  delivered(lagMs: number): void;
}

const SILENT: DispatchObserver = { attempted: () => undefined, delivered: () => undefined };

/** Events read per query, and kept in memory for every subscription of the instance. */
const READ_BATCH = 500;
const WINDOW = 5000;

/**
 * The newest events of the feed, read once for every subscription of this instance: a worker
 * that is caught up takes its next events from here; one further behind reads its own pages.
 */
class EventWindow {
  /** Positions (base, head] are in `events`, in order (positions are dense). */
  private base = 0;
  private head = -1;
  private events: StoredEvent[] = [];
  private timer?: NodeJS.Timeout;
  private reading?: Promise<void>;
  private again = false;
  private readonly waiting = new Set<() => void>();
  private readonly bodies = new WeakMap<StoredEvent, Buffer>();

  constructor(
    private readonly store: EventStore,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  get running(): boolean {
    return this.timer !== undefined;
  }

  async start(): Promise<void> {
    if (this.timer) return;
    const { head } = await this.store.bounds();
    this.base = this.head = head;
    this.events = [];
    this.timer = setInterval(() => this.nudge(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.events = [];
    this.head = -1;
    this.wakeAll();
  }

  /** New positions may be there: read them now (at most one read at a time, one more after). */
  nudge(): void {
    if (!this.timer) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.poll()
      .catch(this.onError)
      .finally(() => {
        this.reading = undefined;
        if (this.again) {
          this.again = false;
          this.nudge();
        }
      });
  }

  private async poll(): Promise<void> {
    let grew = false;
    for (;;) {
      const read = await this.store.after(this.head, READ_BATCH);
      if (!this.timer) return;
      for (const event of read) {
        if (event.position !== this.head + 1) break;
        this.events.push(event);
        this.head = event.position;
        grew = true;
      }
      if (this.events.length > WINDOW) {
        const cut = this.events.length - WINDOW;
        this.events = this.events.slice(cut);
        this.base += cut;
      }
      if (read.length < READ_BATCH) break;
    }
    if (grew) this.wakeAll();
  }

  /**
   * The events after `cursor`, at most READ_BATCH: from memory when the window holds them, else
   * read. Empty when there is nothing after it yet.
   */
  async after(cursor: number): Promise<StoredEvent[]> {
    if (this.timer && cursor >= this.base && cursor <= this.head) {
      const from = cursor - this.base;
      return this.events.slice(from, from + READ_BATCH);
    }
    return this.store.after(cursor, READ_BATCH);
  }

  /** `wake` is called once when new events arrive; the function returned forgets it. */
  onNew(wake: () => void): () => void {
    this.waiting.add(wake);
    return () => this.waiting.delete(wake);
  }

  private wakeAll(): void {
    const woken = [...this.waiting];
    this.waiting.clear();
    for (const wake of woken) wake();
  }

  /**
   * The body of an event's deliveries, the event as the feed renders it, in UTF-8: written once
   * for every subscription of the instance.
   */
  body(event: StoredEvent): Buffer {
    let body = this.bodies.get(event);
    if (body === undefined) {
      body = Buffer.from(JSON.stringify(event.event), 'utf8');
      this.bodies.set(event, body);
    }
    return body;
  }
}

/** The delivery of one subscription on this instance, while it holds the lease. */
class Worker {
  private lastEvent: number;
  private attempt: number;
  private nextAttemptAt: number;
  private epoch: number;
  private pending: Attempt[] = [];
  private dirty = false;
  private lastSave = Date.now();
  private stopped = false;
  private readonly connections = new Connections();
  private readonly wakers = new Set<() => void>();
  private loop?: Promise<void>;
  /** The subscription's URL as last parsed (the target rules are checked again on each attempt). */
  private parsed?: { raw: string; url: URL };
  /** When the event being delivered was written (ms), while one is. */
  behindSince?: number;

  constructor(
    private sub: Subscription,
    private readonly dispatcher: WebhookDispatcher,
  ) {
    this.lastEvent = sub.lastEvent;
    this.attempt = sub.attempt;
    this.nextAttemptAt = sub.nextAttemptAt;
    this.epoch = sub.epoch;
  }

  get id(): number {
    return this.sub.id;
  }

  start(): void {
    this.loop = this.run().catch((error) => this.dispatcher.report(error));
  }

  /** The row as read at a tick: its settings, and after a replay its new position. */
  update(sub: Subscription): void {
    this.sub = sub;
    if (sub.epoch !== this.epoch) {
      this.epoch = sub.epoch;
      this.lastEvent = sub.lastEvent;
      this.attempt = sub.attempt;
      this.nextAttemptAt = sub.nextAttemptAt;
      this.dirty = false;
    }
    this.wake();
  }

  /**
   * Stops (the lease is lost, given back, or the subscription disabled): the attempt under way
   * is cut, and where it stands is saved (refused, harmlessly, where another instance holds it).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.connections.close();
    this.wake();
    await this.loop;
    if (this.dirty || this.pending.length > 0) await this.save().catch(() => undefined);
  }

  private async run(): Promise<void> {
    const d = this.dispatcher;
    while (!this.stopped) {
      try {
        const event = await this.next();
        if (this.stopped) break;
        if (!event) {
          this.behindSince = undefined;
          // Caught up: the position is saved once SAVE_EVERY_MS has passed since the last save,
          // unless new events come first (they are delivered, and saved with the next).
          const due = this.lastSave + d.options.saveEveryMs - Date.now();
          if ((this.dirty || this.pending.length > 0) && due <= 0) await this.save();
          else
            await this.sleep(this.dirty || this.pending.length > 0 ? due : d.options.tickMs, true);
          continue;
        }
        this.behindSince = Date.parse(event.event.at);
        const wait = this.nextAttemptAt - Date.now();
        if (wait > 0) await this.sleep(wait);
        else await this.deliver(event);
      } catch (error) {
        // The database, most likely: tried again shortly.
        d.report(error);
        await this.sleep(d.options.tickMs);
      }
    }
    // Stopped (also by a 410): its kept connections are closed.
    this.connections.close();
  }

  /** The next event for this subscription, moving past the others; undefined when caught up. */
  private async next(): Promise<StoredEvent | undefined> {
    for (;;) {
      const cursor = this.lastEvent;
      const events = await this.dispatcher.window.after(cursor);
      if (this.stopped || cursor !== this.lastEvent) return undefined;
      if (events.length === 0) return undefined;
      // Positions are dense: a hole after the cursor is what retention purged meanwhile.
      if (events[0].position > cursor + 1) this.skipped(cursor, events[0].position - 1);
      for (const event of events) {
        if (this.wants(event)) return event;
        this.lastEvent = event.position;
        this.dirty = true;
      }
    }
  }

  /**
   * A subscription behind what retention kept (disabled, or failing, for longer than
   * EVENTS_RETENTION) goes on from the oldest event kept; the gap is recorded.
   */
  private skipped(cursor: number, through: number): void {
    this.record(through, 0, 'skipped', {
      error: `events ${cursor + 1} to ${through} were no longer kept (EVENTS_RETENTION)`,
      ms: 0,
    });
    this.advance(through);
  }

  private wants(event: StoredEvent): boolean {
    const { collections, actions } = this.sub;
    return (
      (collections === null || collections.includes(event.collection)) &&
      (actions === null || actions.includes(event.event.action))
    );
  }

  private async deliver(event: StoredEvent): Promise<void> {
    const d = this.dispatcher;
    const epoch = this.epoch;
    const sub = this.sub;
    const attempt = this.attempt + 1;
    const now = Date.now();
    const timestamp = Math.floor(now / 1000);
    const body = d.window.body(event);
    const keys = [secretKey(sub.secret)];
    if (sub.previousSecret && (sub.previousSecretUntil ?? 0) > now) {
      keys.push(secretKey(sub.previousSecret));
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': d.options.userAgent,
      'webhook-id': event.event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatures(keys, event.event.id, timestamp, body),
    };
    let outcome: Outcome;
    try {
      if (this.parsed?.raw !== sub.url) {
        this.parsed = { raw: sub.url, url: parseTarget(sub.url, d.options.allowPrivate) };
      }
      const url = this.parsed.url;
      const target = await d.resolver.target(url);
      outcome = await post(url, target, headers, body, d.options.timeoutMs, this.connections);
    } catch (error) {
      if (!(error instanceof TargetRefused)) throw error;
      outcome = { error: error.message, ms: 0 };
    }
    // Stopped meanwhile (its connection was cut), or moved by a replay: the answer is not used.
    if (this.stopped || epoch !== this.epoch) return;
    const status = outcome.status;
    if (status !== undefined && status >= 200 && status < 300) {
      this.record(event.position, attempt, 'delivered', outcome);
      d.observer.delivered(Date.now() - Date.parse(event.event.at));
      this.advance(event.position);
      if (Date.now() - this.lastSave >= d.options.saveEveryMs) await this.save();
      return;
    }
    if (status === 410) {
      this.record(event.position, attempt, 'disabled', outcome);
      this.attempt = 0;
      this.nextAttemptAt = 0;
      await this.save(`the endpoint answered 410 Gone to event ${event.event.id}`);
      this.stopped = true;
      d.dropped(this);
      return;
    }
    const schedule = d.options.retryScheduleMs;
    if (attempt > schedule.length) {
      this.record(event.position, attempt, 'given_up', outcome);
      this.advance(event.position);
    } else {
      this.attempt = attempt;
      this.nextAttemptAt = Date.now() + schedule[attempt - 1];
      this.record(event.position, attempt, 'failed', outcome, this.nextAttemptAt);
    }
    await this.save();
  }

  private advance(position: number): void {
    this.lastEvent = position;
    this.attempt = 0;
    this.nextAttemptAt = 0;
    this.dirty = true;
  }

  private record(
    eventId: number,
    attempt: number,
    outcome: Result,
    { status, error, ms }: Outcome,
    nextAttemptAt: number | null = null,
  ): void {
    this.pending.push({
      subscriptionId: this.sub.id,
      eventId,
      attempt,
      at: Date.now(),
      statusCode: status ?? null,
      error: error ?? null,
      outcome,
      nextAttemptAt,
      durationMs: ms,
    });
    this.dispatcher.observer.attempted(outcome);
  }

  /**
   * Saves the position and the attempts. Refused (another instance took the subscription, or
   * a replay moved it): the row is read again, and the worker goes on from there or stops.
   */
  private async save(disable?: string): Promise<void> {
    const d = this.dispatcher;
    const progress: Progress = {
      lastEvent: this.lastEvent,
      attempt: this.attempt,
      nextAttemptAt: this.nextAttemptAt,
    };
    const attempts = this.pending;
    this.pending = [];
    this.dirty = false;
    this.lastSave = Date.now();
    let saved: boolean;
    try {
      saved = await d.store.save(this.sub.id, d.holder, this.epoch, progress, attempts, disable);
    } catch (error) {
      // Kept for the next save.
      this.pending = [...attempts, ...this.pending];
      this.dirty = true;
      throw error;
    }
    if (saved) return;
    const row = await d.store.get(this.sub.id);
    if (!row || row.holder !== d.holder || row.status !== 'active') {
      this.stopped = true;
      d.dropped(this);
      return;
    }
    this.update(row);
  }

  /** Waits `ms`, or less when woken (a change of the row, a stop; with `events`, new events). */
  private sleep(ms: number, events = false): Promise<void> {
    return new Promise((resolve) => {
      let forget = () => undefined as unknown;
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        forget();
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
      if (events) forget = this.dispatcher.window.onNew(done);
    });
  }

  private wake(): void {
    for (const wake of [...this.wakers]) wake();
  }
}

export class WebhookDispatcher {
  readonly holder = `${hostname().slice(0, 20)}-${process.pid}-${randomUUID().slice(0, 8)}`;
  readonly window: EventWindow;
  readonly resolver: Resolver;
  private readonly workers = new Map<number, Worker>();
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private renewedAt = 0;
  private stopped = false;
  observer: DispatchObserver = SILENT;

  constructor(
    readonly store: WebhookStore,
    private readonly events: EventStore,
    readonly options: DispatchOptions,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.window = new EventWindow(events, options.pollMs, (error) => this.report(error));
    this.resolver = new Resolver(options.allowPrivate);
  }

  report(error: unknown): void {
    this.onError(error);
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs);
    this.timer.unref();
    void this.tick();
  }

  /** New positions (this instance's sequencer gave them): read now rather than at the poll. */
  nudge(): void {
    this.window.nudge();
  }

  /** The subscriptions this instance delivers now, and how far behind each is (seconds). */
  lags(now = Date.now()): [number, number][] {
    return [...this.workers.values()].map((w) => [
      w.id,
      w.behindSince === undefined ? 0 : Math.max(0, now - w.behindSince) / 1000,
    ]);
  }

  /**
   * One round: takes the subscriptions nobody holds (and renews this instance's leases once
   * half of them has passed), then reads the ones it holds, starting, updating or stopping
   * their workers.
   */
  tick(): Promise<void> {
    if (this.ticking || this.stopped) return this.ticking ?? Promise.resolve();
    this.ticking = this.round()
      .catch((error) => this.report(error))
      .finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async round(): Promise<void> {
    const now = Date.now();
    const renew = now - this.renewedAt >= this.options.leaseMs / 2;
    await this.store.claim(this.holder, now, now + this.options.leaseMs, renew);
    if (renew) this.renewedAt = now;
    const held = (await this.store.held(this.holder)).filter((s) => s.leaseUntil > Date.now());
    if (this.stopped) return;
    await this.adopt(held);
  }

  /** A subscription created by this instance: held from the start, delivered at once. */
  async take(id: number): Promise<void> {
    const sub = await this.store.get(id);
    if (!sub || sub.holder !== this.holder || this.stopped) return;
    await this.adopt([sub], false);
  }

  /**
   * A subscription changed through this instance (its URL, filters, secret, a replay): the
   * worker that delivers it here reads it now rather than at the next tick. (Where another
   * instance delivers it, that instance reads it at its next tick, within TICK_MS.)
   */
  async refresh(id: number): Promise<void> {
    const sub = await this.store.get(id);
    if (this.stopped) return;
    if (!sub || sub.holder !== this.holder || sub.status !== 'active') {
      // Deleted or disabled: its worker here stops now (another instance's at its next tick).
      const worker = this.workers.get(id);
      this.workers.delete(id);
      await worker?.stop();
      return;
    }
    if (sub.leaseUntil > Date.now()) await this.adopt([sub], false);
  }

  /** Workers for `held`; with `all`, the others stop (this instance holds them no more). */
  private async adopt(held: Subscription[], all = true): Promise<void> {
    if (all) {
      const ids = new Set(held.map((s) => s.id));
      for (const [id, worker] of this.workers) {
        if (!ids.has(id)) {
          this.workers.delete(id);
          void worker.stop();
        }
      }
    }
    for (const sub of held) {
      const worker = this.workers.get(sub.id);
      if (worker) {
        worker.update(sub);
        continue;
      }
      if (!this.window.running) await this.window.start();
      const started = new Worker(sub, this);
      this.workers.set(sub.id, started);
      started.start();
    }
    if (this.workers.size === 0 && this.window.running) this.window.stop();
  }

  /** A worker that stopped by itself (410, or its lease lost). */
  dropped(worker: Worker): void {
    if (this.workers.get(worker.id) === worker) this.workers.delete(worker.id);
  }

  /**
   * Stops delivering: the attempts under way are cut (their events are sent again by the next
   * holder), where each subscription stands is saved, and the leases are handed back at once.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking;
    const workers = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(workers.map((w) => w.stop()));
    this.window.stop();
    await this.store.release(this.holder).catch(() => undefined);
  }
}
