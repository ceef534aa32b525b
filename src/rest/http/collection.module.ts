import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Paginator } from '../core/paginator';
import { ResourceDefinition } from '../core/resource';
import { CollectionContext } from '../sql/record-collection';
import { entitiesOf, tableOf } from '../sql/tables';
import { PaginatorModule } from './paginator.module';

/** Token of the declaration a collection module serves (a plain value: see below). */
const COLLECTION_RESOURCE = Symbol('COLLECTION_RESOURCE');

function collectionContext(resource: ResourceDefinition, paginator: Paginator) {
  return new CollectionContext(resource, paginator);
}

/**
 * What a collection's module imports: `CollectionModule.forFeature(MARBLES)` provides its
 * `CollectionContext` (the declaration, its own Paginator with the options the declaration
 * states, laid over the application's defaults and any override the environment names for the
 * collection, and the paths a client may filter and order by), which its service, its controller
 * and the OpenAPI document read; and registers the TypeORM entities derived from the declaration
 * (its table and its join tables: src/rest/sql/tables.ts) where they are used
 * (`autoLoadEntities`). The declaration travels as a plain value, so that Nest tells two
 * collections' modules apart.
 */
@Module({})
export class CollectionModule {
  static forFeature(resource: ResourceDefinition): DynamicModule {
    return {
      module: CollectionModule,
      imports: [
        PaginatorModule.forFeature(resource.pagination, resource.plural),
        TypeOrmModule.forFeature(entitiesOf(tableOf(resource))),
      ],
      providers: [
        { provide: COLLECTION_RESOURCE, useValue: resource },
        {
          provide: CollectionContext,
          useFactory: collectionContext,
          inject: [COLLECTION_RESOURCE, Paginator],
        },
      ],
      exports: [CollectionContext],
    };
  }
}
