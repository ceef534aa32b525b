import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { APP_CONFIG, AppConfigModule } from './config/config.module';
import { AppConfig } from './config/configuration';
import { DemoDataModule } from './database/demo-data.module';
import { dataSourceOptions } from './database/data-source-options';
import { openDatabase } from './database/migrate';
import { EmailsModule } from './emails/emails.module';
import { EMAILS } from './emails/emails.resource';
import { HealthModule } from './health/health.module';
import { loggerParams } from './logging';
import { MarblesModule } from './marbles/marbles.module';
import { MARBLES } from './marbles/marbles.resource';
import { MoviesModule } from './movies/movies.module';
import { MOVIES } from './movies/movies.resource';
import { PhoneNumbersModule } from './phone-numbers/phone-numbers.module';
import { PHONE_NUMBERS } from './phone-numbers/phone-numbers.resource';
import { PaginatorModule } from './rest/http/paginator.module';
import { RestModule } from './rest/http/rest.module';

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
        LoggerModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (app: AppConfig) => loggerParams(app),
        }),
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (app: AppConfig) => ({
            ...dataSourceOptions(app.database),
            autoLoadEntities: true,
          }),
          dataSourceFactory: (options) => openDatabase(options!),
        }),
        RestModule.forRoot({ statementTimeoutMs: config.queryTimeoutMs }),
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
        ...COLLECTIONS.map((c) => c.module),
      ],
    };
  }
}
