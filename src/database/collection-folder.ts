/**
 * What a collection's folder exports (its `index.ts`): everything the application needs of it
 * (the shape only: this folder names no collection). `src/collections.ts` lists the folders; the
 * modules, the demo data, the migrations, the OpenAPI document's tags and description and the
 * start-up checks all come from that list.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import type { MigrationInterface } from 'typeorm';
import type { ResourceDefinition } from '../rest/core/resource';
import type { CollectionRoutes } from '../rest/http/collection.module';
import { MIGRATIONS } from './data-source-options';
import type { DemoRows } from './demo-data';

export interface Collection extends CollectionRoutes {
  /**
   * The declaration (`defineResource`): routes, fields, rules, examples, and the table, whose
   * TypeORM entity is derived from it (src/rest/sql/tables.ts), and with it the collection's
   * Nest module, controller and service (`CollectionModule.forFeature`).
   */
  declaration: ResourceDefinition;
  /** Its part of the demo data: its tables and rows. */
  demo: DemoRows;
  /**
   * Migrations that create and change its tables, run after the shared ones (the first four
   * collections' tables come from the shared migrations of src/database/migrations): the files
   * `<timestamp>-<name>.ts` of its folder, which `npm run migration:generate -- <folder>` writes.
   */
  migrations: Type<MigrationInterface>[];
}

/** A migration's file name: `1795632054038-tags.ts` (or `.js` once built). */
const MIGRATION_FILE = /^(\d{13})-[\w.-]+\.(ts|js)$/;

/**
 * The migration classes of a folder, in the order of their timestamps: every class each
 * `<timestamp>-<name>.ts` file exports. Declaration files (`.d.ts`) are not migrations.
 */
export function migrationsIn(folder: string): Type<MigrationInterface>[] {
  return readdirSync(folder)
    .filter((name) => MIGRATION_FILE.test(name) && !name.endsWith('.d.ts'))
    .sort()
    .flatMap((name) =>
      Object.values(require(join(folder, name)) as Record<string, unknown>).filter(
        (value): value is Type<MigrationInterface> =>
          typeof value === 'function' && typeof value.prototype?.up === 'function',
      ),
    );
}

/** Every collection `defineCollection` made: what a folder's index exports that counts. */
const DEFINED = new WeakSet<object>();

/**
 * A collection from its folder (`__dirname` of its index.ts) and its parts: its migrations are
 * the folder's migration files. The folder's index exports it, and that is the whole of adding
 * it: `collectionsUnder` finds it.
 */
export function defineCollection(
  folder: string,
  parts: Omit<Collection, 'migrations'>,
): Collection {
  const collection = { ...parts, migrations: migrationsIn(folder) };
  DEFINED.add(collection);
  return collection;
}

/** The collections a folder's index exports (none when it has no index, as src/config/). */
export function collectionsIn(folder: string): Collection[] {
  const index = ['index.ts', 'index.js'].map((name) => join(folder, name)).find(existsSync);
  if (!index) return [];
  return Object.values(require(index) as Record<string, unknown>).filter(
    (value): value is Collection =>
      typeof value === 'object' && value !== null && DEFINED.has(value),
  );
}

/**
 * The collections of the folders directly under `root` (src/), in the order of their paths
 * (`/api/demo/emails`, `/api/demo/marbles`, ..., `/api/plain/movies`): the order of the front
 * door, the OpenAPI document's tags and its description.
 */
export function collectionsUnder(root: string): Collection[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => collectionsIn(join(root, entry.name)))
    .sort((a, b) => (a.declaration.path < b.declaration.path ? -1 : 1));
}

/** Names the collections of the running application (`AppModule.register`'s list), for injection. */
export const APP_COLLECTIONS = Symbol('APP_COLLECTIONS');

/** Every migration to run: the shared ones, then each collection's own, in the list's order. */
export function migrationsOf(collections: readonly Collection[]): Type<MigrationInterface>[] {
  return [...MIGRATIONS, ...collections.flatMap((c) => c.migrations)];
}

/**
 * Where two collections share a plural name, a path or a table, or a collection takes an internal
 * table (`users`): the later one and what it collides with, in one line, as the start refuses
 * them before any query runs (`labels (/api/demo/labels): its table tags is also that of
 * tags (/api/demo/tags); ...`). Undefined when every collection has its own.
 */
export function collisionOf(
  collections: readonly Collection[],
  internalTables: readonly string[],
): { collection: string; problem: string } | undefined {
  const taken = new Map<string, string>();
  for (const table of internalTables) taken.set(`table ${table}`, `the internal table ${table}`);
  for (const { declaration } of collections) {
    const { plural, path, table } = declaration;
    const keys: [string, string][] = [
      ['plural name', plural],
      ['path', path],
      ['table', table],
    ];
    for (const [kind, value] of keys) {
      const other = taken.get(`${kind} ${value}`);
      if (other !== undefined) {
        return {
          collection: `${plural} (${path})`,
          problem: `its ${kind} ${value} is also that of ${other}; each collection needs a plural name, path and table of its own`,
        };
      }
    }
    for (const [kind, value] of keys) taken.set(`${kind} ${value}`, `${plural} (${path})`);
  }
  return undefined;
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
