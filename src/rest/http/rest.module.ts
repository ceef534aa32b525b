import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { SQL_DATABASE_PROVIDER } from '../sql/database';
import { SqlDatabase } from '../sql/port';
import { ApiDocs } from './api-docs';
import { ApiExceptionFilter } from './api-exception.filter';
import { RenderInterceptor } from './render.interceptor';

/**
 * The REST layer for the application: the database port over TypeORM's DataSource, the OpenAPI
 * document, and the global interceptor (envelope, JSON/XML) and exception filter.
 */
@Global()
@Module({
  providers: [
    SQL_DATABASE_PROVIDER,
    ApiDocs,
    { provide: APP_INTERCEPTOR, useClass: RenderInterceptor },
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
  ],
  exports: [SqlDatabase, ApiDocs],
})
export class RestModule {}
