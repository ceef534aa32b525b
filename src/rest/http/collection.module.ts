import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ResourceDefinition } from '../core/resource';
import { PaginatorModule } from './paginator.module';

type Entities = Parameters<typeof TypeOrmModule.forFeature>[0];

/**
 * What a collection's module imports: its own Paginator, with the options its declaration states
 * (`PaginatorModule.forFeature(MARBLES.pagination, 'marbles')`, where the environment may
 * override them by the collection's name), and the TypeORM entities of the tables it
 * uses, registered where they are used (`autoLoadEntities`).
 */
@Module({})
export class CollectionModule {
  static forFeature(resource: ResourceDefinition, entities: Entities): DynamicModule {
    const paginator = PaginatorModule.forFeature(resource.pagination, resource.plural);
    return {
      module: CollectionModule,
      imports: [paginator, TypeOrmModule.forFeature(entities)],
      exports: [paginator],
    };
  }
}
