/** Types of scripts/test-database.js, for the TypeScript suites that use it. */
export const DEFAULT_TEST_MYSQL_URL: string;
export const TEST_DATABASE_PREFIX: string;
export const MARKER_TABLE: string;
/** A URL naming several nodes of a cluster as its first node alone (any other URL as it is). */
export function firstNodeOf(url: string): string;
export function databaseOf(url: string): string;
export function serverOf(url: string): string;
export function foreignDatabaseMessage(database: string): string;
export function prepareTestDatabase(
  url: string,
): Promise<{ foreign?: string; unreachable?: string }>;
export function claimTestDatabase(url: string): Promise<string | undefined>;
export function ownDatabaseName(kind: string): string;
/** The database of Jest worker `worker`: `<database>_<worker>` on the same server or cluster. */
export function workerDatabaseUrl(url: string, worker: number | string): string;
