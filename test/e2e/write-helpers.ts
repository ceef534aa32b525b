/**
 * Shared by the write-side suites (write-*.e2e-spec.ts): fixture rows, the stored-row reader that
 * hides the two databases' differences (MySQL hands back `12.50` for a decimal SQLite keeps as
 * `12.5`; MySQL has the generated `primary_user_id` column), and the response checks the
 * contract prescribes for every write.
 */
import type { Response } from 'supertest';
import { Row, TestApp } from './harness';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';
export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** A server-generated timestamp in a JSON response. */
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export const VALIDATION_FAILED = 'Validation failed; nothing was saved.';
export const BULK_INVALID = 'Some items are invalid; nothing was saved.';
export const UNKNOWN_MARBLE_FIELD = 'Unknown field; marble has no such field.';

export const ANN = { id: 1, login: 'ann' };
export const BOB = { id: 2, login: 'bob' };
export const CLEO = { id: 3, login: 'cleo' };

export const ACTION = { id: 1, name: 'Action' };
export const DRAMA = { id: 2, name: 'Drama' };
export const COMEDY = { id: 3, name: 'Comedy' };

/** Fixture timestamps, as the database stores them and as the API renders them. */
export const T1 = '2024-05-01 12:00:00.123';
export const T1_ISO = '2024-05-01T12:00:00.123Z';
export const T2 = '2024-05-02 08:30:15.000';
export const T2_ISO = '2024-05-02T08:30:15.000Z';

/** Users ann (1), bob (2) and cleo (3), with no billing addresses. */
export async function seedUsers(t: TestApp): Promise<void> {
  await t.insert(
    'users',
    [ANN, BOB, CLEO].map((u) => ({ ...u, email_id: null })),
  );
}

/** Genres Action (1), Drama (2) and Comedy (3). */
export async function seedGenres(t: TestApp): Promise<void> {
  await t.insert('genres', [ACTION, DRAMA, COMEDY]);
}

/** A stored marble row with every column, for `t.insert`. */
export function marbleRow(id: number, name: string, extra: Row = {}): Row {
  return {
    id,
    name,
    radius_mm: 10,
    price: '2.5',
    is_discounted: false,
    created_at: T1,
    updated_at: T2,
    user_id: null,
    description: '',
    picture: null,
    ...extra,
  };
}

/** A stored movie row with every column, for `t.insert`. */
export function movieRow(id: number, name: string, extra: Row = {}): Row {
  return { id, name, price: '12.0', main_genre_id: null, created_at: T1, updated_at: T2, ...extra };
}

/** A decimal in canonical form (`12.50` → `12.5`, `4` → `4.0`), or null. */
export function canonical(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const [whole, fraction = ''] = String(value).split('.');
  return `${whole}.${fraction.replace(/0+$/, '') || '0'}`;
}

const BOOLEAN_COLUMNS = new Set(['is_primary', 'is_discounted']);
const DECIMAL_COLUMNS = new Set(['price']);

/**
 * The rows of a table, ordered by id (or `orderBy`), the same on both databases: booleans as
 * booleans, decimals canonical, MySQL's generated `primary_user_id` column left out.
 */
export async function stored(t: TestApp, table: string, orderBy?: string): Promise<Row[]> {
  const rows = await t.rows(table, orderBy);
  return rows.map((row) => {
    const out: Row = {};
    for (const [key, value] of Object.entries(row)) {
      if (key === 'primary_user_id') continue;
      if (BOOLEAN_COLUMNS.has(key)) out[key] = Number(value) === 1;
      else if (DECIMAL_COLUMNS.has(key)) out[key] = canonical(value);
      else if (typeof value === 'bigint') out[key] = Number(value);
      else out[key] = value;
    }
    return out;
  });
}

/** Rows of a join table as [owner, target] pairs. */
export async function links(
  t: TestApp,
  table: 'genres_movies' | 'movies_users',
): Promise<number[][]> {
  const target = table === 'genres_movies' ? 'genre_id' : 'user_id';
  const rows = await t.rows(table, `movie_id,${target}`);
  return rows.map((r) => [Number(r.movie_id), Number(r[target])]);
}

/** `2024-05-01T12:00:00.123Z` → `2024-05-01 12:00:00.123`, as both databases store it. */
export function dbTime(iso: string): string {
  return iso.replace('T', ' ').replace('Z', '');
}

/** A JSON response: status and Content-Type. */
export function expectJson(res: Response, status: number): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({
    status,
    type: JSON_TYPE,
  });
}

/** An XML response: status, Content-Type and declaration. */
export function expectXml(res: Response, status: number): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({
    status,
    type: XML_TYPE,
  });
  expect(res.text.startsWith(XML_DECLARATION)).toBe(true);
}

/** A whole XML document: the declaration, then the root element. */
export function xmlDocument(root: string): string {
  return `${XML_DECLARATION}\n${root}\n`;
}

/** An error response of CONTRACT §5 in JSON: exact status and body, nothing leaked. */
export function expectError(res: Response, status: number, body: unknown): void {
  expectJson(res, status);
  expect(res.body).toEqual(body);
  expectNoLeak(res);
}

/** §5: no stack trace, SQL or driver text in a body. */
export function expectNoLeak(res: Response): void {
  const text = res.text ?? '';
  for (const needle of [
    'SELECT',
    'INSERT',
    'UPDATE ',
    'DELETE FROM',
    'QueryFailedError',
    'ER_',
    'SQLITE',
    'TypeORM',
  ]) {
    expect(text).not.toContain(needle);
  }
  expect(text).not.toMatch(/\n\s+at /);
  expect(text).not.toMatch(/\.ts:\d+/);
}

/** The Location header of a create: an absolute URL of the new record. */
export function expectLocation(res: Response, path: string): void {
  expect(res.headers.location).toMatch(
    new RegExp(`^https?://[^/]+${path.replace(/[.]/g, '\\.')}$`),
  );
}

/**
 * Server-set timestamps of a record just created or updated: the ISO form with milliseconds,
 * inside the window of the request (`before`..`after`, from Date.now()).
 */
export function expectStampedWithin(value: unknown, before: number, after: number): void {
  expect(value).toMatch(ISO_MS);
  const at = Date.parse(value as string);
  expect(at).toBeGreaterThanOrEqual(before);
  expect(at).toBeLessThanOrEqual(after);
}

const SEQUENCED = ['users', 'genres', 'emails', 'marbles', 'phone_numbers', 'movies'];

/**
 * Empties every table and restarts the id sequences, so records a test creates get ids 1, 2, …
 * on both databases.
 */
export async function freshTables(t: TestApp): Promise<void> {
  await t.reset();
  if (t.dialect === 'mysql') {
    for (const table of SEQUENCED)
      await t.dataSource.query(`ALTER TABLE \`${table}\` AUTO_INCREMENT = 1`);
  } else {
    const sequences = await t.dataSource.query(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'",
    );
    if (sequences.length > 0) await t.dataSource.query('DELETE FROM sqlite_sequence');
  }
}
