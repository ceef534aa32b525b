import { DynamicModule, Logger, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { APP_CONFIG, AppConfigModule } from './config/config.module';
import { AppConfig, describeDatabase } from './config/configuration';
import { connectDatabase } from './database/connect';
import { DemoDataModule } from './database/demo-data.module';
import { dataSourceOptions } from './database/data-source-options';
import { IdempotencyKey } from './database/idempotency-key.entity';
import { EmailsModule } from './emails/emails.module';
import { EMAILS } from './emails/emails.resource';
import { FrontDoorModule } from './front-door/front-door.module';
import { HealthModule } from './health/health.module';
import { loggerParams } from './logging';
import { MarblesModule } from './marbles/marbles.module';
import { MARBLES } from './marbles/marbles.resource';
import { MoviesModule } from './movies/movies.module';
import { MOVIES } from './movies/movies.resource';
import { ObservabilityModule } from './observability/observability.module';
import { PhoneNumbersModule } from './phone-numbers/phone-numbers.module';
import { PHONE_NUMBERS } from './phone-numbers/phone-numbers.resource';
import { PaginatorModule } from './rest/http/paginator.module';
import { RestModule } from './rest/http/rest.module';
import { ReplicaStatus } from './rest/sql/port';

/**
 * The collections this service serves: each a module of its own folder, and its declaration, in
 * the order of the interface document (the order of the OpenAPI document's tags).
 */
const COLLECTIONS = [
  { module: EmailsModule, declaration: EMAILS },
  { module: PhoneNumbersModule, declaration: PHONE_NUMBERS },
  { module: MarblesModule, declaration: MARBLES },
  { module: MoviesModule, declaration: MOVIES },
];
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

@Module({})
export class AppModule {
  /**
   * The application for a validated configuration: `main.ts` reads it from the environment (and
   * `.env`) with `loadConfig`, tests build their own. ConfigModule holds it for injection.
   */
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
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
            ...dataSourceOptions(app.database, app.replicas.urls),
            autoLoadEntities: true,
            // connectDatabase retries what may pass and stops on what cannot.
            toRetry: () => false,
          }),
          dataSourceFactory: (options) =>
            connectDatabase(options!, describeDatabase(config.database)),
        }),
        RestModule.forRoot({
          statementTimeoutMs: config.queryTimeoutMs,
          replicas: {
            maxLag: config.replicas.maxLag,
            checkEveryMs: REPLICA_CHECK_EVERY_MS,
            onChange: logReplicaChange,
          },
          idempotencyTtlMs: config.idempotencyTtlMs,
          requireIfMatch: config.requireIfMatch,
        }),
        TypeOrmModule.forFeature([IdempotencyKey]),
        PaginatorModule.forRoot(
          { pageTotalCount: config.pageTotalCount },
          Object.fromEntries(
            Object.entries(config.pageTotalCountOf).map(([name, on]) => [
              name,
              { pageTotalCount: on },
            ]),
          ),
        ),
        DemoDataModule,
        HealthModule,
        FrontDoorModule.forRoot(COLLECTIONS.map((c) => c.declaration)),
        ...COLLECTIONS.map((c) => c.module),
      ],
    };
  }
}
