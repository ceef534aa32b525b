import { ConfigurableModuleBuilder, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { DatabaseOptions, sqlDatabaseProvider } from '../sql/database';
import { SqlDatabase } from '../sql/port';
import { ApiDocs } from './api-docs';
import { ApiExceptionFilter } from './api-exception.filter';
import { RenderInterceptor } from './render.interceptor';

/** Time limit of reads, and how read replicas are checked (src/rest/sql/database.ts). */
export type RestOptions = DatabaseOptions;

const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN } =
  new ConfigurableModuleBuilder<RestOptions>().setClassMethodName('forRoot').build();

/**
 * The REST layer for the application (`RestModule.forRoot(options)`): the database port over
 * TypeORM's DataSource, the OpenAPI document, and the global interceptor (envelope, JSON/XML)
 * and exception filter.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [
    sqlDatabaseProvider(MODULE_OPTIONS_TOKEN),
    ApiDocs,
    { provide: APP_INTERCEPTOR, useClass: RenderInterceptor },
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
  ],
  exports: [SqlDatabase, ApiDocs],
})
export class RestModule extends ConfigurableModuleClass {}
