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
import { HealthModule } from './health/health.module';
import { loggerParams } from './logging';
import { MarblesModule } from './marbles/marbles.module';
import { MoviesModule } from './movies/movies.module';
import { PhoneNumbersModule } from './phone-numbers/phone-numbers.module';
import { PaginatorModule } from './rest/http/paginator.module';
import { RestModule } from './rest/http/rest.module';

/** The collections this service serves, each a module of its own folder. */
const COLLECTIONS = [EmailsModule, MarblesModule, PhoneNumbersModule, MoviesModule];

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
        RestModule,
        PaginatorModule.forRoot(),
        DemoDataModule,
        HealthModule,
        ...COLLECTIONS,
      ],
    };
  }
}
