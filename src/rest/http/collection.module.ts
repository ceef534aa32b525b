import { Controller, DynamicModule, Module, Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Paginator } from '../core/paginator';
import { ResourceDefinition } from '../core/resource';
import { SqlDatabase } from '../db/sql-database';
import { CollectionContext, RecordCollection } from '../sql/record-collection';
import { entitiesOf, tableOf } from '../sql/tables';
import { CollectionController } from './collection.controller';
import { PaginatorModule } from './paginator.module';

/** Token of the declaration a collection module serves (a plain value: see below). */
const COLLECTION_RESOURCE = Symbol('COLLECTION_RESOURCE');

/**
 * What a collection adds to its standard routes: a controller extending
 * `CollectionController(DECLARATION)` with routes of its own, and the service behind them (a
 * `RecordCollection` with actions of its own). Marbles have both; a collection without either
 * is its declaration alone.
 */
export interface CollectionRoutes {
  controller?: Type<unknown>;
  service?: Type<RecordCollection>;
}

function collectionContext(resource: ResourceDefinition, paginator: Paginator) {
  return new CollectionContext(resource, paginator);
}

function recordCollection(context: CollectionContext, db: SqlDatabase) {
  return new RecordCollection(context, db);
}

/** `phone_numbers` → `PhoneNumbers`: the derived classes' names, as Nest's logs show them. */
function pascalCase(plural: string): string {
  return plural.replace(/(^|_)([a-z])/g, (_, _sep: string, letter: string) => letter.toUpperCase());
}

function named<T extends Type<unknown>>(type: T, name: string): T {
  Object.defineProperty(type, 'name', { value: name });
  return type;
}

/** The standard routes at the declaration's path; they reach the module's `RecordCollection`. */
function standardController(resource: ResourceDefinition): Type<unknown> {
  @Controller(resource.path)
  class StandardController extends CollectionController(resource) {}
  return named(StandardController, `${pascalCase(resource.plural)}Controller`);
}

/**
 * A collection's Nest module, from its declaration, as `TypeOrmModule.forFeature([Entity])`
 * gives repositories from a list: `CollectionModule.forFeature(TAGS)` is the whole module of a
 * collection with no routes of its own (its controller serves the declared routes, its service
 * is a `RecordCollection`), and `CollectionModule.forFeature(MARBLES, { controller, service })`
 * one that adds its own. Either way the module provides the collection's `CollectionContext`
 * (the declaration, its own Paginator with the options the declaration states, laid over the
 * application's defaults and any override the environment names for the collection, and the
 * paths a client may filter and order by), which its service, its controller and the OpenAPI
 * document read; and registers the TypeORM entities derived from the declaration (its table and
 * its join tables: src/rest/sql/tables.ts). Inside the module, `RecordCollection` is the
 * collection's service, whatever its class. Each collection gets a module class of its own
 * (`TagsModule`), so Nest never takes two collections' modules for one.
 */
@Module({})
export class CollectionModule {
  static forFeature(resource: ResourceDefinition, routes: CollectionRoutes = {}): DynamicModule {
    const service = routes.service
      ? [routes.service, { provide: RecordCollection, useExisting: routes.service }]
      : [
          {
            provide: RecordCollection,
            useFactory: recordCollection,
            inject: [CollectionContext, SqlDatabase],
          },
        ];
    return {
      module: named(class {}, `${pascalCase(resource.plural)}Module`),
      imports: [
        PaginatorModule.forFeature(resource.pagination, resource.plural),
        TypeOrmModule.forFeature(entitiesOf(tableOf(resource))),
      ],
      controllers: [routes.controller ?? standardController(resource)],
      providers: [
        { provide: COLLECTION_RESOURCE, useValue: resource },
        {
          provide: CollectionContext,
          useFactory: collectionContext,
          inject: [COLLECTION_RESOURCE, Paginator],
        },
        ...service,
      ],
      exports: [CollectionContext, RecordCollection],
    };
  }
}
