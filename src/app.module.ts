import { DynamicModule, Logger, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { APP_CONFIG, AppConfigModule } from './config/config.module';
import { AppConfig } from './config/configuration';
import { describeDatabase } from './config/database-url';
import {
  APP_COLLECTIONS,
  Collection,
  collisionOf,
  migrationsOf,
} from './database/collection-folder';
import { COLLECTIONS, TABLES } from './collections';
import { connectDatabase } from './database/connect';
import { DemoDataModule } from './database/demo-data.module';
import { EventsModule } from './events/events.module';
import { dataSourceOptions } from './database/data-source-options';
import { IdempotencyKey } from './database/idempotency-key.entity';
import { FrontDoorModule } from './front-door/front-door.module';
import { HealthModule } from './health/health.module';
import { loggerParams } from './logging';
import { ObservabilityModule } from './observability/observability.module';
import { CollectionModule } from './rest/http/collection.module';
import { PaginatorModule } from './rest/http/paginator.module';
import { RestModule } from './rest/http/rest.module';
import { AccessModule } from './rest/http/access.module';
import { ClusterNodeStatus, ReplicaStatus } from './rest/db/sql-database';
import { entitiesOf, tableOf } from './rest/sql/tables';
import { DeclarationError } from './rest/core/resource';
import { EventSequencerRow, RecordEvent, RecordEventOutbox } from './events/record-event.entity';
import { WebhookDeliveryRow, WebhookSubscriptionRow } from './webhooks/webhook.entity';
import { WebhooksModule } from './webhooks/webhooks.module';
import { OperationsModule } from './operations/operations.module';

/** The names of the collections this service serves (PAGE_TOTAL_COUNT_<NAME> takes them). */
export const COLLECTION_NAMES = COLLECTIONS.map((c) => c.declaration.plural);

/** How often every process checks each read replica's state and lag. */
const REPLICA_CHECK_EVERY_MS = 1000;

function logReplicaChange(now: ReplicaStatus, before: ReplicaStatus): void {
  const logger = new Logger('Replicas');
  const lag = now.lag_seconds === null ? '' : `, ${now.lag_seconds} s behind`;
  const message =
    `${now.url}: ${now.state}${lag}, ${now.in_rotation ? 'in' : 'out of'} the rotation` +
    (now.error ? ` (${now.error})` : '') +
    ` (was ${before.state})`;
  if (now.in_rotation) logger.log(message);
  else logger.warn(message);
}

/** How often every process checks each node of a Galera cluster, and how long a node may take. */
const CLUSTER_CHECK_EVERY_MS = 1000;
const CLUSTER_CHECK_TIMEOUT_MS = 2000;

/** One line per move of the writes: a warning when a node failed, information otherwise. */
function logFailover(
  from: ClusterNodeStatus | undefined,
  to: ClusterNodeStatus | undefined,
  reason: string,
): void {
  const logger = new Logger('Cluster');
  const where = (node: ClusterNodeStatus) => `${node.name} (${node.url})`;
  if (!to) logger.error(`writes have no node: ${reason}`);
  else if (!from) logger.log(`writes go through ${where(to)}: ${reason}`);
  else logger.warn(`writes moved from ${where(from)} to ${where(to)}: ${reason}`);
}

@Module({})
export class AppModule {
  /**
   * The application for a validated configuration: `main.ts` reads it from the environment (and
   * `.env`) with `loadConfig`, tests build their own. ConfigModule holds it for injection.
   * `collections`: what it serves, `COLLECTIONS` unless a test adds its own.
   */
  static register(
    config: AppConfig,
    collections: readonly Collection[] = COLLECTIONS,
  ): DynamicModule {
    const collision = collisionOf(
      collections,
      TABLES.map((t) => t.table),
    );
    if (collision) throw new DeclarationError(collision.collection, collision.problem);
    return {
      module: AppModule,
      providers: [{ provide: APP_COLLECTIONS, useValue: collections }],
      exports: [APP_COLLECTIONS],
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          load: [() => ({ app: config })],
        }),
        AppConfigModule,
        ObservabilityModule.forRoot(config),
        LoggerModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (app: AppConfig) => loggerParams(app),
        }),
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (app: AppConfig) => ({
            ...dataSourceOptions(app.database, app.replicas.urls, migrationsOf(collections)),
            // The tables of this app's collections and its own, named here rather than taken
            // from what every feature module ever registered in the process (autoLoadEntities):
            // a process that imported other collections' modules (the tests' fixtures) would
            // otherwise give this app their tables too.
            entities: [
              IdempotencyKey,
              ...TABLES.flatMap(entitiesOf),
              ...collections.flatMap((c) => entitiesOf(tableOf(c.declaration))),
              RecordEventOutbox,
              RecordEvent,
              EventSequencerRow,
              WebhookSubscriptionRow,
              WebhookDeliveryRow,
            ],
            // connectDatabase retries what may pass and stops on what cannot.
            toRetry: () => false,
          }),
          dataSourceFactory: (options) =>
            connectDatabase(
              options!,
              describeDatabase(config.database),
              undefined,
              config.database.type === 'mysql' ? (config.database.nodes?.length ?? 1) : 1,
            ),
        }),
        RestModule.forRoot({
          statementTimeoutMs: config.queryTimeoutMs,
          replicas: {
            maxLag: config.replicas.maxLag,
            checkEveryMs: REPLICA_CHECK_EVERY_MS,
            onChange: logReplicaChange,
          },
          cluster:
            config.database.type === 'mysql' && config.database.nodes
              ? {
                  nodes: config.database.nodes,
                  checkEveryMs: CLUSTER_CHECK_EVERY_MS,
                  checkTimeoutMs: CLUSTER_CHECK_TIMEOUT_MS,
                  causalReads: config.clusterReads,
                  onFailover: logFailover,
                }
              : undefined,
          idempotencyTtlMs: config.idempotencyTtlMs,
          requireIfMatch: config.requireIfMatch,
          strictQuery: config.strictQuery,
        }),
        TypeOrmModule.forFeature([IdempotencyKey, ...TABLES.flatMap(entitiesOf)]),
        PaginatorModule.forRoot(
          { pageTotalCount: config.pageTotalCount },
          Object.fromEntries(
            Object.entries(config.pageTotalCountOf).map(([name, on]) => [
              name,
              { pageTotalCount: on },
            ]),
          ),
        ),
        DemoDataModule.forRoot(collections.map((c) => c.demo)),
        AccessModule.forRoot(
          {
            apiToken: config.apiToken,
            jwt:
              config.auth.issuer || config.auth.jwksUrl
                ? {
                    issuer: config.auth.issuer,
                    jwksUrl: config.auth.jwksUrl,
                    audience: config.auth.audience,
                    cooldownMs: config.auth.jwksCooldownMs,
                    maxAgeMs: config.auth.jwksMaxAgeMs,
                  }
                : undefined,
            collections: collections.map(({ declaration: { path, plural } }) => ({ path, plural })),
            readsRequired: config.auth.readsRequired,
          },
          { ...config.rateLimits, trustProxy: config.trustProxy },
        ),
        HealthModule,
        FrontDoorModule.forRoot(
          collections.map((c) => c.declaration),
          config.events.enabled,
        ),
        // Before the collections: `{collection}/events` is routed ahead of `{collection}/:id`.
        EventsModule.forRoot(
          config.events,
          collections.map((c) => c.declaration),
          {
            livePages: config.browsableApi && !config.auth.readsRequired,
            strictQuery: config.strictQuery,
            timing: {
              heartbeatMs: config.events.heartbeatMs,
              maxUnsent: config.events.maxUnsentBytes,
            },
          },
        ),
        WebhooksModule.forRoot(
          config,
          collections.map((c) => c.declaration.plural),
          config.webhooks.timing,
        ),
        OperationsModule.forRoot({ max: config.operationsMax }),
        ...collections.map((c) => CollectionModule.forFeature(c.declaration, c)),
      ],
    };
  }
}
