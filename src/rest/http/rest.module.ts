import { ConfigurableModuleBuilder, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { sqlDatabaseProvider } from '../sql/database';
import { SqlDatabase } from '../sql/port';
import { ApiDocs } from './api-docs';
import { ApiExceptionFilter } from './api-exception.filter';
import { RenderInterceptor } from './render.interceptor';

export interface RestOptions {
  /** Time limit of one read statement, in milliseconds (MySQL); 0 for none. */
  statementTimeoutMs: number;
}

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
