import {
  BeforeApplicationShutdown,
  DynamicModule,
  Global,
  Inject,
  Logger,
  Module,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AppConfig } from '../config/configuration';
import { EventStore } from '../events/event-store';
import { EventsRuntime } from '../events/events.module';
import { LIVE_TIMING, settledPosition } from '../events/live-pages';
import { READINESS_DETAILS, ReadinessDetails } from '../health/readiness';
import { Observability } from '../observability/observability';
import { SqlDatabase } from '../rest/db/sql-database';
import { DEFAULT_DISPATCH_TIMING, DispatchTiming, WebhookDispatcher } from './dispatcher';
import { WEBHOOK_GATE, WebhookGate, WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';
import { WebhookStore } from './webhook-store';

const WEBHOOKS_OPTIONS = Symbol('WEBHOOKS_OPTIONS');

interface WebhooksOptions {
  enabled: boolean;
  /** This instance delivers (WEBHOOK_DELIVERY): its dispatcher runs. */
  delivers: boolean;
  /** Nudges the sequencer, once the feed's runtime is known (at bootstrap). */
  nudge: () => void;
}

/** How long the subscriptions' numbers are reused by /health/ready, in ms. */
const COUNTS_FOR_MS = 2000;

/**
 * Webhooks (docs/webhooks.md): the routes of /api/webhooks and this instance's dispatcher, which
 * delivers the subscriptions it holds. Served with the change feed only (EVENTS_ENABLED): with
 * the feed off there is nothing to deliver, and the routes are not served (404).
 */
@Global()
@Module({})
export class WebhooksModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(WEBHOOKS_OPTIONS) private readonly options: WebhooksOptions,
    private readonly dispatcher: WebhookDispatcher,
    private readonly moduleRef: ModuleRef,
    private readonly observability: Observability,
  ) {}

  /**
   * `collections`: the plural names a subscription may name. `timing`: the tests' shorter
   * leases and saves (no variable sets them).
   */
  static forRoot(
    config: AppConfig,
    collections: readonly string[],
    timing: Partial<DispatchTiming> = {},
  ): DynamicModule {
    const enabled = config.events.enabled;
    const { webhooks } = config;
    const options: WebhooksOptions = {
      enabled,
      delivers: enabled && webhooks.deliver,
      nudge: () => undefined,
    };
    const dispatch = { ...DEFAULT_DISPATCH_TIMING, ...timing };
    const logger = new Logger('Webhooks');
    return {
      module: WebhooksModule,
      controllers: enabled ? [WebhooksController] : [],
      providers: [
        { provide: WEBHOOKS_OPTIONS, useValue: options },
        { provide: WEBHOOK_GATE, useValue: webhooks.allowPrivate },
        WebhookGate,
        {
          provide: WebhookStore,
          inject: [SqlDatabase],
          useFactory: (db: SqlDatabase) => new WebhookStore(db),
        },
        {
          provide: EventStore,
          inject: [SqlDatabase],
          useFactory: (db: SqlDatabase) => new EventStore(db),
        },
        {
          provide: WebhookDispatcher,
          inject: [WebhookStore, EventStore],
          useFactory: (store: WebhookStore, events: EventStore) =>
            new WebhookDispatcher(
              store,
              events,
              {
                ...dispatch,
                timeoutMs: webhooks.timeoutMs,
                retryScheduleMs: webhooks.retryScheduleMs,
                allowPrivate: webhooks.allowPrivate,
                userAgent: 'record-collections-webhooks',
              },
              (error) =>
                logger.warn(`delivery: ${error instanceof Error ? error.message : String(error)}`),
            ),
        },
        {
          provide: WebhooksService,
          inject: [WebhookStore, EventStore, WebhookDispatcher],
          useFactory: (store: WebhookStore, events: EventStore, dispatcher: WebhookDispatcher) =>
            new WebhooksService(store, events, dispatcher, {
              collections,
              allowPrivate: webhooks.allowPrivate,
              secretGraceMs: webhooks.secretGraceMs,
              leaseMs: dispatch.leaseMs,
              delivers: webhooks.deliver,
              present: () => settledPosition(events, LIVE_TIMING, () => options.nudge()),
            }),
        },
        {
          provide: READINESS_DETAILS,
          inject: [WebhookDispatcher],
          useFactory: (dispatcher: WebhookDispatcher) => readiness(dispatcher, enabled),
        },
      ],
      exports: [READINESS_DETAILS],
    };
  }

  onApplicationBootstrap(): void {
    if (!this.options.enabled) return;
    const runtime = this.moduleRef.get(EventsRuntime, { strict: false });
    this.options.nudge = () => runtime.sequencer.nudge();
    const metrics = this.observability.metrics;
    if (metrics) {
      const store = this.dispatcher.store;
      this.dispatcher.observer = metrics.addWebhooks({
        counts: () => store.counts(),
        lags: () => this.dispatcher.lags(),
      });
    }
    if (!this.options.delivers) return;
    runtime.sequenced.add(() => this.dispatcher.nudge());
    this.dispatcher.start();
  }

  /** Before the feed and the database stop: the positions are saved, the leases handed back. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.options.delivers) await this.dispatcher.stop();
  }
}

/**
 * `/health/ready`'s `webhooks`, where there is any subscription: the subscriptions by status,
 * and those this instance delivers.
 */
function readiness(dispatcher: WebhookDispatcher, enabled: boolean): ReadinessDetails | null {
  if (!enabled) return null;
  let cached: { at: number; counts: Promise<Record<string, number>> } | undefined;
  return {
    name: 'webhooks',
    async details() {
      const now = Date.now();
      if (!cached || now - cached.at > COUNTS_FOR_MS) {
        cached = { at: now, counts: dispatcher.store.counts() };
        cached.counts.catch(() => (cached = undefined));
      }
      const counts = await cached.counts;
      if (counts.active + counts.disabled === 0) return undefined;
      const lags = dispatcher.lags(now).map(([, seconds]) => seconds);
      return {
        active: counts.active,
        disabled: counts.disabled,
        delivered_here: lags.length,
        behind_here: lags.filter((s) => s > 0).length,
        max_lag_seconds: Math.round(Math.max(0, ...lags) * 1000) / 1000,
      };
    },
  };
}
