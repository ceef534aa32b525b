import {
  DynamicModule,
  Inject,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  BeforeApplicationShutdown,
} from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { RequestHandler } from 'express';
import { EventsConfig, HEARTBEAT_MS } from '../config/configuration';
import { HealthModule } from '../health/health.module';
import { Lifecycle } from '../health/lifecycle';
import { ResourceDefinition } from '../rest/core/resource';
import { setChangeLog } from '../rest/sql/changes';
import { SqlDatabase } from '../rest/db/sql-database';
import { ChangeRecorder } from './change-recorder';
import { EventFeed } from './event-feed';
import { EventHub, HubOptions } from './event-hub';
import { EventStore } from './event-store';
import { EventsController, collectionEventsController } from './events.controller';
import { EventSequencerRow, RecordEvent, RecordEventOutbox } from './record-event.entity';
import { LIVE_TIMING, livePages as livePagesOf, settledPosition } from './live-pages';
import { rememberRequest } from './request-context';
import { Sequencer, SequencerOptions } from './sequencer';

/** How the feed polls and streams; tests may shorten the heartbeat. */
export interface EventTiming extends HubOptions, Omit<SequencerOptions, 'retentionMs'> {}

export const DEFAULT_TIMING: EventTiming = {
  pollMs: 50,
  // The application gives these from its configuration (EventsConfig).
  heartbeatMs: HEARTBEAT_MS,
  maxUnsent: 1024 * 1024,
  stallMs: 30_000,
  // Writes of this instance nudge the sequencer as they commit; the poll is for the rest.
  everyMs: 1_000,
  // Under load, one positioning round per 50 ms at most: many writes' events in one transaction
  // (a round is six statements; at 10 ms they were a fifth of the outbox's cost on each write).
  gapMs: 50,
  leaseMs: 5_000,
  purgeEveryMs: 60_000,
};

const EVENTS_OPTIONS = Symbol('EVENTS_OPTIONS');

/**
 * The feed's Express middlewares (none with EVENTS_ENABLED=false), by the requests they serve:
 * `writes`, the request kept at hand for the change recorder (a read records no event), and
 * `pages`, the browsable pages' live position (GET of an HTML page only). `configureApp` mounts
 * them in its request pipeline (rest/http/request/pipeline.ts), so that a JSON read runs none of
 * the feed's code, not even a check: Nest's own middleware (`MiddlewareConsumer`) would wrap each
 * in a route match and an exclusion check on every request.
 */
export interface FeedMiddleware {
  writes: RequestHandler[];
  pages: RequestHandler[];
}

export const FEED_MIDDLEWARE = Symbol('FEED_MIDDLEWARE');

interface EventsOptions {
  config: EventsConfig;
  timing: EventTiming;
  /** The collections served. */
  collections: readonly ResourceDefinition[];
}

/** The parts of the feed on one instance, started and stopped together. */
export class EventsRuntime {
  readonly store: EventStore;
  readonly hub: EventHub;
  readonly sequencer: Sequencer;
  readonly recorder: ChangeRecorder;
  /** Told of the highest position after each batch this instance's sequencer gave (webhooks). */
  readonly sequenced = new Set<(head: number) => void>();

  constructor(
    readonly db: SqlDatabase,
    options: EventsOptions,
    lifecycle: Lifecycle,
  ) {
    const logger = new Logger('Events');
    const report = (what: string) => (error: unknown) =>
      logger.warn(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    this.store = new EventStore(db);
    this.hub = new EventHub(this.store, options.timing, () => lifecycle.draining, report('reader'));
    this.sequencer = new Sequencer(
      db,
      { ...options.timing, retentionMs: options.config.retentionMs },
      (head) => {
        this.hub.nudge();
        for (const listener of this.sequenced) listener(head);
      },
      report('sequencer'),
    );
    this.recorder = new ChangeRecorder(db, () => this.sequencer.nudge());
  }
}

/**
 * The change feed (docs/events.md): writes add their events through the ChangeLog it installs on
 * the database, its sequencer gives them positions, its routes serve them. Imported before the
 * collections' modules, so that `{collection}/events` is routed before `{collection}/:id`.
 * With EVENTS_ENABLED=false it installs nothing and serves no route.
 */
@Module({})
export class EventsModule
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  constructor(
    @Inject(EVENTS_OPTIONS) private readonly options: EventsOptions,
    private readonly runtime: EventsRuntime,
  ) {}

  /**
   * `livePages`: the browsable pages are served and readable without a token, so the live notice
   * of list and record pages can stream the feed (an EventSource sends no Authorization header).
   * `strictQuery` (STRICT_QUERY): a query parameter the feed does not take is a 400.
   */
  static forRoot(
    config: EventsConfig,
    collections: readonly ResourceDefinition[],
    {
      livePages = false,
      timing = {},
      strictQuery = false,
    }: { livePages?: boolean; timing?: Partial<EventTiming>; strictQuery?: boolean } = {},
  ): DynamicModule {
    const options: EventsOptions = {
      config,
      timing: { ...DEFAULT_TIMING, ...timing },
      collections,
    };
    const names = collections.map((c) => c.plural);
    return {
      module: EventsModule,
      imports: [
        HealthModule,
        TypeOrmModule.forFeature([RecordEventOutbox, RecordEvent, EventSequencerRow]),
      ],
      controllers: config.enabled
        ? [EventsController, ...collections.map(collectionEventsController)]
        : [],
      providers: [
        { provide: EVENTS_OPTIONS, useValue: options },
        {
          provide: EventsRuntime,
          inject: [SqlDatabase, EVENTS_OPTIONS, Lifecycle],
          useFactory: (db: SqlDatabase, o: EventsOptions, lifecycle: Lifecycle) =>
            new EventsRuntime(db, o, lifecycle),
        },
        {
          provide: FEED_MIDDLEWARE,
          inject: [EventsRuntime],
          useFactory: (runtime: EventsRuntime): FeedMiddleware =>
            !config.enabled
              ? { writes: [], pages: [] }
              : {
                  writes: [rememberRequest],
                  pages: livePages
                    ? [livePagesOf(runtime.store, collections, () => runtime.sequencer.nudge())]
                    : [],
                },
        },
        {
          provide: EventFeed,
          inject: [EventsRuntime, Lifecycle],
          useFactory: (runtime: EventsRuntime, lifecycle: Lifecycle) =>
            new EventFeed(
              runtime.store,
              runtime.hub,
              names,
              () => lifecycle.draining,
              () => settledPosition(runtime.store, LIVE_TIMING, () => runtime.sequencer.nudge()),
              strictQuery,
            ),
        },
      ],
      exports: [EventsRuntime, FEED_MIDDLEWARE],
    };
  }

  onApplicationBootstrap(): void {
    if (!this.options.config.enabled) return;
    setChangeLog(this.runtime.db, this.runtime.recorder);
    this.runtime.sequencer.start();
  }

  /** Streams end first (SIGTERM): their clients resume elsewhere. */
  beforeApplicationShutdown(): void {
    this.runtime.hub.endAll();
  }

  async onApplicationShutdown(): Promise<void> {
    setChangeLog(this.runtime.db, undefined);
    await this.runtime.sequencer.stop();
  }
}
