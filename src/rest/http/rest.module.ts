import { ConfigurableModuleBuilder, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { sqlDatabaseProvider } from '../db/typeorm-database';
import { IdempotencyStore } from '../sql/idempotency-store';
import { SqlDatabase } from '../db/sql-database';
import { ApiDocs } from './openapi/api-docs';
import { ApiExceptionFilter } from './response/api-exception.filter';
import { IdempotencyPurge } from './safe-writes/idempotency-purge';
import { RenderInterceptor } from './response/render.interceptor';
import { RouteTable } from './request/route-table';
import { REST_OPTIONS, RestOptions } from './options/rest-options';

const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN } =
  new ConfigurableModuleBuilder<RestOptions>().setClassMethodName('forRoot').build();

/**
 * The REST layer for the application (`RestModule.forRoot(options)`): the database port over
 * TypeORM's DataSource, the OpenAPI document, the global interceptor (rendering) and exception
 * filter, and the store of Idempotency-Keys with its purge. The store and the options are
 * exported for the units the write routes attach (`@Write()`, `@Conditional()`).
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [
    sqlDatabaseProvider(MODULE_OPTIONS_TOKEN),
    { provide: REST_OPTIONS, useExisting: MODULE_OPTIONS_TOKEN },
    {
      provide: IdempotencyStore,
      useFactory: (db: SqlDatabase, options: RestOptions) =>
        new IdempotencyStore(db, options.idempotencyTtlMs),
      inject: [SqlDatabase, MODULE_OPTIONS_TOKEN],
    },
    IdempotencyPurge,
    ApiDocs,
    RouteTable,
    { provide: APP_INTERCEPTOR, useClass: RenderInterceptor },
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
  ],
  exports: [SqlDatabase, ApiDocs, IdempotencyStore, REST_OPTIONS],
})
export class RestModule extends ConfigurableModuleClass {}
