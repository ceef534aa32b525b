import type { Collection } from './database/collection-folder';
import { EMAILS_COLLECTION } from './emails';
import { MARBLES_COLLECTION } from './marbles';
import { MOVIES_COLLECTION } from './movies';
import { PHONE_NUMBERS_COLLECTION } from './phone-numbers';
import { GENRES } from './genres/genres.table';
import type { TableDefinition } from './rest/sql/tables';
import { USERS } from './users/users.table';

/**
 * The collections this service serves, one folder each, in the order of the OpenAPI document's
 * tags. Adding a collection is adding its folder (see `Collection`) and one line here.
 */
export const COLLECTIONS: readonly Collection[] = [
  EMAILS_COLLECTION,
  PHONE_NUMBERS_COLLECTION,
  MARBLES_COLLECTION,
  MOVIES_COLLECTION,
];

/** The internal tables (seeded, no routes) that collections point to. */
export const TABLES: readonly TableDefinition[] = [USERS, GENRES];
