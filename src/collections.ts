import { Collection, collectionsUnder } from './database/collection-folder';
import { GENRES } from './genres/genres.table';
import type { TableDefinition } from './rest/sql/tables';
import { USERS } from './users/users.table';

/**
 * The collections this service serves: every folder of src/ whose index.ts exports one
 * (`defineCollection`), in the order of their paths. Adding a collection is adding its folder;
 * nothing here changes.
 */
export const COLLECTIONS: readonly Collection[] = collectionsUnder(__dirname);

/** The internal tables (seeded, no routes) that collections point to. */
export const TABLES: readonly TableDefinition[] = [USERS, GENRES];
