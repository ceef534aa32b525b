/**
 * What the routes of /api/webhooks do (docs/webhooks.md): subscriptions as clients see them,
 * created at the feed's present and delivered at once by the instance that created them, their
 * latest attempts, replays and secret rotations.
 */
import { RecordError } from '../rest/core/errors';
import { EventStore, parseCursor } from '../events/event-store';
import { ApiError } from '../rest/http/response/api-error';
import { WebhookDispatcher } from './dispatcher';
import { newSecret } from './signature';
import { TargetRefused, parseTarget } from './targets';
import { subscriptionInput } from './webhook-input';
import { Attempt, Settings, Subscription, WebhookStore } from './webhook-store';

/** A subscription as the API shows it. */
export interface SubscriptionView {
  id: number;
  url: string;
  description: string;
  collections: string[] | null;
  actions: string[] | null;
  status: string;
  disabled_reason: string | null;
  secret: string;
  last_event_id: string;
  created_at: string;
  updated_at: string;
}

export interface AttemptView {
  event_id: string;
  attempt: number;
  at: string;
  outcome: string;
  status_code: number | null;
  error: string | null;
  next_attempt_at: string | null;
  duration_ms: number;
}

export interface WebhookSettings {
  /** The plural names of the collections served. */
  collections: readonly string[];
  allowPrivate: boolean;
  secretGraceMs: number;
  leaseMs: number;
  /**
   * This instance delivers (WEBHOOK_DELIVERY): a subscription it creates is its own to deliver
   * at once. Otherwise the new subscription's lease is free from the start: an instance that
   * delivers takes it at its next round.
   */
  delivers: boolean;
  /** The feed's present: its head once the events of writes acknowledged before have positions. */
  present: () => Promise<number>;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function view(sub: Subscription): SubscriptionView {
  return {
    id: sub.id,
    url: sub.url,
    description: sub.description,
    collections: sub.collections,
    actions: sub.actions,
    status: sub.status,
    disabled_reason: sub.disabledReason,
    secret: sub.secret,
    last_event_id: String(sub.lastEvent),
    created_at: iso(sub.createdAt),
    updated_at: iso(sub.updatedAt),
  };
}

function attemptView(a: Attempt): AttemptView {
  return {
    event_id: String(a.eventId),
    attempt: a.attempt,
    at: iso(a.at),
    outcome: a.outcome,
    status_code: a.statusCode,
    error: a.error,
    next_attempt_at: a.nextAttemptAt === null ? null : iso(a.nextAttemptAt),
    duration_ms: a.durationMs,
  };
}

export class WebhooksService {
  constructor(
    private readonly store: WebhookStore,
    private readonly events: EventStore,
    private readonly dispatcher: WebhookDispatcher,
    private readonly settings: WebhookSettings,
  ) {}

  async list(): Promise<{ results: SubscriptionView[] }> {
    return { results: (await this.store.list()).map(view) };
  }

  async show(id: number): Promise<SubscriptionView> {
    return view(await this.found(id));
  }

  async create(body: unknown): Promise<SubscriptionView> {
    const { settings, status } = subscriptionInput(body, this.settings.collections, false);
    await this.checkTarget(settings.url!);
    const now = Date.now();
    const id = await this.store.create(
      settings as Settings,
      newSecret(),
      await this.settings.present(),
      now,
      this.dispatcher.holder,
      this.settings.delivers ? now + this.settings.leaseMs : 0,
    );
    if (status === 'disabled') await this.store.update(id, { status }, now);
    else if (this.settings.delivers) await this.dispatcher.take(id);
    return this.show(id);
  }

  async update(id: number, body: unknown): Promise<SubscriptionView> {
    const { settings, status } = subscriptionInput(body, this.settings.collections, true);
    await this.found(id);
    if (settings.url !== undefined) await this.checkTarget(settings.url);
    if (!(await this.store.update(id, { ...settings, status }, Date.now()))) throw notFound(id);
    await this.dispatcher.refresh(id);
    return this.show(id);
  }

  async remove(id: number): Promise<void> {
    if (!(await this.store.remove(id))) throw notFound(id);
    await this.dispatcher.refresh(id);
  }

  async deliveries(id: number): Promise<{ results: AttemptView[] }> {
    await this.found(id);
    return { results: (await this.store.attempts(id)).map(attemptView) };
  }

  /** `{"after": "<cursor>"}`: the events after it are sent again, in order. */
  async replay(id: number, body: unknown): Promise<{ message: string }> {
    const raw = (body as { after?: unknown } | null)?.after;
    const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
    const after = parseCursor(text);
    if (after === undefined) {
      throw RecordError.invalid('Validation failed; nothing was changed.', {
        after: ['Must be the id of an event (a cursor of the change feed), or 0.'],
      });
    }
    await this.found(id);
    const { head, purgedThrough } = await this.events.bounds();
    // `0`, as on the feed: from the oldest event kept.
    if (after === 0) {
      if (!(await this.store.replay(id, purgedThrough, Date.now()))) throw notFound(id);
      await this.dispatcher.refresh(id);
      return {
        message: 'The events kept that this subscription takes will be sent again, in order.',
      };
    }
    if (after < purgedThrough) {
      throw new ApiError(
        410,
        `The events after ${after} are no longer kept (EVENTS_RETENTION); the oldest that can be sent again are after ${purgedThrough}.`,
      );
    }
    const settled = after > head ? (await this.events.bounds(true)).head : head;
    if (after > settled) {
      throw new ApiError(
        409,
        `The cursor ${after} is ahead of the feed, whose newest event is ${settled}.`,
      );
    }
    if (!(await this.store.replay(id, after, Date.now()))) throw notFound(id);
    await this.dispatcher.refresh(id);
    return {
      message: `The events after ${after} that this subscription takes will be sent again, in order.`,
    };
  }

  /** A new secret; the one it replaces still signs for WEBHOOK_SECRET_GRACE. */
  async rotate(id: number): Promise<SubscriptionView> {
    await this.found(id);
    const now = Date.now();
    if (!(await this.store.rotate(id, newSecret(), now + this.settings.secretGraceMs, now))) {
      throw notFound(id);
    }
    await this.dispatcher.refresh(id);
    return this.show(id);
  }

  private async found(id: number): Promise<Subscription> {
    const sub = await this.store.get(id);
    if (!sub) throw notFound(id);
    return sub;
  }

  /** The target rules (targets.ts): a 400 naming the rule broken. */
  private async checkTarget(raw: string): Promise<void> {
    try {
      const url = parseTarget(raw, this.settings.allowPrivate);
      await this.dispatcher.resolver.target(url);
    } catch (error) {
      if (!(error instanceof TargetRefused)) throw error;
      throw RecordError.invalid(error.message, { url: [error.message] });
    }
  }
}

export function notFound(id: number | string): ApiError {
  return new ApiError(404, `Webhook subscription ${id} not found.`);
}
