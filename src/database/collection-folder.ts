/**
 * What a collection's folder exports (its `index.ts`): everything the application needs of it
 * (the shape only: this folder names no collection). `src/collections.ts` lists the folders; the modules, the demo data, the migrations, the OpenAPI
 * document's tags and description and the start-up checks all come from that list.
 */
import type { Type } from '@nestjs/common';
import type { MigrationInterface } from 'typeorm';
import type { ResourceDefinition } from '../rest/core/resource';
import { MIGRATIONS } from './data-source-options';
import type { DemoRows } from './demo-data';

export interface Collection {
  /** The Nest module: `CollectionModule.forFeature(declaration)`, controller, service. */
  module: Type<unknown>;
  /**
   * The declaration (`defineResource`): routes, fields, rules, examples, and the table, whose
   * TypeORM entity is derived from it (src/rest/sql/tables.ts).
   */
  declaration: ResourceDefinition;
  /** Its part of the demo data: its tables and rows. */
  demo: DemoRows;
  /**
   * Migrations that create and change its tables (`npm run migration:generate -- <its folder>`
   * writes them from the declaration), run after the shared ones (the first four collections'
   * tables come from the shared migrations of src/database/migrations).
   */
  migrations?: Type<MigrationInterface>[];
}

/** Names the collections of the running application (`AppModule.register`'s list), for injection. */
export const APP_COLLECTIONS = Symbol('APP_COLLECTIONS');

/** Every migration to run: the shared ones, then each collection's own, in the list's order. */
export function migrationsOf(collections: readonly Collection[]): Type<MigrationInterface>[] {
  return [...MIGRATIONS, ...collections.flatMap((c) => c.migrations ?? [])];
}

/**
 * The OpenAPI document's description of the collections, by path prefix: "Emails, phone numbers
 * and marbles under /api/demo, movies under /api/plain."
 */
export function describeCollections(collections: readonly Collection[]): string {
  const byPrefix = new Map<string, string[]>();
  for (const { declaration } of collections) {
    const prefix = declaration.path.slice(0, declaration.path.lastIndexOf('/'));
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), declaration.plural.replace(/_/g, ' ')]);
  }
  const text = [...byPrefix]
    .map(([prefix, names]) => `${inWords(names)} under ${prefix}`)
    .join(', ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function inWords(names: string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
