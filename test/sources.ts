/**
 * The one door from the e2e and ops suites into src/: everything they use of the application is
 * re-exported here, so that when the sources move, the paths change in this file alone. (The unit
 * tests import the modules they test directly.)
 */
import type { Collection } from '../src/database/collection-folder';
import { COLLECTIONS as APP_COLLECTIONS } from '../src/collections';
import { extraCollections } from './fixtures';

export { AppModule } from '../src/app.module';
export { migrationsOf } from '../src/database/collection-folder';
export type { Collection } from '../src/database/collection-folder';
export { APP_COLLECTIONS };
export { FIXTURE_COLLECTIONS } from './fixtures';

/**
 * What the suites serve and count: the application's collections, then the fixture collections
 * EXTRA_COLLECTIONS names (test/fixtures/index.ts; `npm run test:fixtures`).
 */
export const COLLECTIONS: readonly Collection[] = [...APP_COLLECTIONS, ...extraCollections()];

/** Their names (PAGE_TOTAL_COUNT_<NAME> takes them). */
export const COLLECTION_NAMES = COLLECTIONS.map((c) => c.declaration.plural);
export type { AppConfig } from '../src/config/configuration';
export type { DatabaseConfig } from '../src/config/database-url';
export { loadConfig } from '../src/config/configuration';
export { parseDatabaseUrl } from '../src/config/database-url';
export { ENVIRONMENT_VARIABLES } from '../src/config/environment';
export { MIGRATIONS, dataSourceOptions } from '../src/database/data-source-options';
export { openDatabase } from '../src/database/migrate';
export { DemoData, seededRandom } from '../src/database/demo-data';
export type { DemoInsert, DemoRandom, DemoRows } from '../src/database/demo-data';
export { APP_OPTIONS, configureApp } from '../src/setup';
export { scalarFields } from '../src/rest/core/resource';
export { SqlDatabase } from '../src/rest/db/sql-database';
export { EMAILS } from '../src/emails/emails.resource';
export { MARBLES } from '../src/marbles/marbles.resource';
export { PHONE_NUMBERS } from '../src/phone-numbers/phone-numbers.resource';
export { ApiDocs } from '../src/rest/http/openapi/api-docs';
export { AccessControl } from '../src/rest/http/auth/access-control';
export { parseXml } from '../src/rest/core/input/xml-input';
export { IdempotencyPurge } from '../src/rest/http/safe-writes/idempotency-purge';
export type { TransactionRunner } from '../src/rest/db/transactions';
export { writeContext } from '../src/events/request-context';
export { EventsRuntime } from '../src/events/events.module';
export type { FeedEvent } from '../src/events/event-store';
