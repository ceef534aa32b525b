import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityMetadata } from 'typeorm';
import { APP_COLLECTIONS, Collection } from './database/collection';
import { entityProblem } from './database/entity-check';
import { DeclarationError } from './rest/core/resource';

/**
 * At start, before any request or demo row: each collection's declaration against its entity
 * (src/database/entity-check.ts). A disagreement stops the start with one line naming the
 * collection and the field.
 */
@Injectable()
export class CollectionsCheck implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_COLLECTIONS) private readonly collections: readonly Collection[],
  ) {}

  onModuleInit(): void {
    const tables = new Map<string, EntityMetadata>(
      this.dataSource.entityMetadatas.map((m) => [m.tableName, m]),
    );
    for (const { declaration, entity } of this.collections) {
      if (!this.dataSource.hasMetadata(entity)) {
        throw new DeclarationError(
          declaration.plural,
          `its entity ${entity.name} is not registered (CollectionModule.forFeature)`,
        );
      }
      const problem = entityProblem(declaration, this.dataSource.getMetadata(entity), tables);
      if (problem) throw new DeclarationError(declaration.plural, problem);
    }
  }
}
