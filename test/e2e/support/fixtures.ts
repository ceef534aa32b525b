/**
 * Rows the suites start from and the values they expect back: users and genres, stored marble and
 * movie rows with every column, fixture timestamps in both forms, the paths of the collections.
 */
import { COLLECTIONS } from '../../sources';
import type { DemoInsert } from '../../sources';
import { Row, Tables, TestApp } from './harness';

export const ANN = { id: 1, login: 'ann' };
export const BOB = { id: 2, login: 'bob' };
export const CLEO = { id: 3, login: 'cleo' };

export const ACTION = { id: 1, name: 'Action' };
export const DRAMA = { id: 2, name: 'Drama' };
export const COMEDY = { id: 3, name: 'Comedy' };

/** The index path of each collection the application serves. */
export const COLLECTION_PATHS = COLLECTIONS.map((c) => c.declaration.path);

/** The path of record 1 of each collection. */
export const RECORD_PATHS = COLLECTION_PATHS.map((path) => `${path}/1`);

/** Users with these logins, ids 1, 2, …, and no billing addresses yet. */
export function userRows(...logins: string[]): Row[] {
  return logins.map((login, i) => ({ id: i + 1, login, email_id: null }));
}

/** Users ann (1), bob (2) and cleo (3), with no billing addresses. */
export const USERS = userRows('ann', 'bob', 'cleo');

/** Genres Action (1), Drama (2) and Comedy (3). */
export const GENRES = [ACTION, DRAMA, COMEDY];

/** Makes e-mail `emailId` the billing address of user `userId` (the e-mail's `billing_user`). */
export async function setBillingEmail(t: TestApp, userId: number, emailId: number): Promise<void> {
  await t.query('UPDATE users SET email_id = ? WHERE id = ?', [emailId, userId]);
}

/** Fixture timestamps, as the database stores them and as the API renders them. */
export const T1 = '2024-05-01 12:00:00.123';
export const T1_ISO = '2024-05-01T12:00:00.123Z';
export const T2 = '2024-05-02 08:30:15.000';
export const T2_ISO = '2024-05-02T08:30:15.000Z';

/** `2024-05-01T12:00:00.123Z` → `2024-05-01 12:00:00.123`, as both databases store it. */
export function dbTime(iso: string): string {
  return iso.replace('T', ' ').replace('Z', '');
}

/** The fields of a marble, in the order every response gives them. */
export const MARBLE_FIELDS =
  'id name radius_mm price is_discounted created_at updated_at user description picture'.split(' ');

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

/** A marble as the API answers a create with only `fields` sent: the defaults, any timestamps. */
export function createdMarble(id: number, fields: Row): Row {
  return {
    id,
    name: fields.name,
    radius_mm: 1,
    price: null,
    is_discounted: false,
    created_at: expect.any(String),
    updated_at: expect.any(String),
    description: '',
    picture: null,
    ...fields,
  };
}

/** The stored row of a marble that `res` created: the defaults and the server's timestamps. */
export function storedMarble(res: { body: Row }, row: Row = {}): Row {
  return {
    ...marbleRow(res.body.id as number, res.body.name as string),
    radius_mm: 1,
    price: null,
    created_at: dbTime(res.body.created_at as string),
    updated_at: dbTime(res.body.updated_at as string),
    ...row,
  };
}

/** A stored movie row with every column, for `t.insert`. */
export function movieRow(id: number, name: string, extra: Row = {}): Row {
  return { id, name, price: '12.0', main_genre_id: null, created_at: T1, updated_at: T2, ...extra };
}

/** An enveloped listing that fits on its first page of 30. */
export function onePage(results: unknown[]) {
  const count = results.length;
  return { count, page: 1, page_size: 30, total_pages: count === 0 ? 0 : 1, results };
}

/** The XML of `onePage`, from the inner XML of each record. */
export function onePageXml(records: string[]): string {
  return (
    `<hash><count type="integer">${records.length}</count><page type="integer">1</page>` +
    '<page-size type="integer">30</page-size><total-pages type="integer">1</total-pages>' +
    `<results type="array">${records.map((r) => `<result>${r}</result>`).join('')}</results></hash>`
  );
}

/** Rows of a join table of movies: `movieLinks('genre_id', [1, 2])` links movie 1 to genre 2. */
export function movieLinks(column: 'genre_id' | 'user_id', ...pairs: [number, number][]): Row[] {
  return pairs.map(([movie_id, id]) => ({ movie_id, [column]: id }));
}

/** Two e-mails: ann's primary (1) and bob's other (2). */
export const TWO_EMAILS = [
  { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
  { id: 2, email: 'bob@example.com', is_primary: false, user_id: 2 },
];

/** Two phone numbers: ann's (1) and bob's (2). */
export const TWO_PHONES = [
  { id: 1, number: '555-0100', user_id: 1 },
  { id: 2, number: '555-0101', user_id: 2 },
];

const STAMP = '2024-05-01 12:00:00.000';

/** Marble `id` of a numbered series ("Marble 001"), ann's, with a description to fill a page. */
export function numberedMarble(id: number): Row {
  return marbleRow(id, `Marble ${String(id).padStart(3, '0')}`, {
    radius_mm: 1 + (id % 30),
    price: '9.20',
    created_at: STAMP,
    updated_at: STAMP,
    user_id: 1,
    description: `A hand-made marble number ${id}, with a description long enough to fill a page.`,
  });
}

/**
 * Record 1 of each collection beyond the four written out in `ONE_OF_EACH` (the fixtures under
 * EXTRA_COLLECTIONS, or a collection added to `COLLECTIONS`): the first row of its demo data,
 * its owner among `users`.
 */
function firstDemoRows(users: Row[], written: readonly string[]): Tables {
  const tables: Tables = {};
  const context = {
    users: users as { id: number; login: string }[],
    genres: [],
    random: { next: () => 0, int: (min: number) => min },
  };
  for (const { declaration, demo } of COLLECTIONS) {
    if (written.includes(declaration.table)) continue;
    const insert = demo
      .rows?.(context)
      .find((step): step is DemoInsert => 'columns' in step && step.table === declaration.table);
    if (!insert) throw new Error(`${declaration.plural}: no demo rows to take record 1 from`);
    tables[declaration.table] = [
      Object.fromEntries(insert.columns.map((column, i) => [column, insert.rows[0][i]])),
    ];
  }
  return tables;
}

const ONE_OF_EACH_USERS = userRows('ann', 'bob');

/** Users ann and bob, an e-mail, a phone number, a marble, a genre, a movie. */
const OWN_ROWS: Tables = {
  users: ONE_OF_EACH_USERS,
  emails: [{ id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 }],
  phone_numbers: [{ id: 1, number: '555 0100', user_id: 1 }],
  marbles: [numberedMarble(1)],
  genres: [{ id: 1, name: 'Drama' }],
  movies: [
    movieRow(1, 'Open Water', {
      price: '12.50',
      main_genre_id: 1,
      created_at: STAMP,
      updated_at: STAMP,
    }),
  ],
  genres_movies: [{ movie_id: 1, genre_id: 1 }],
};
/** One of each: OWN_ROWS, and record 1 of any other collection served. */
export const ONE_OF_EACH: Tables = {
  ...OWN_ROWS,
  ...firstDemoRows(ONE_OF_EACH_USERS, Object.keys(OWN_ROWS)),
};
