/**
 * Deterministic demo data: the same rows, with the same ids, on every run and every database.
 * Rows are inserted with explicit ids in multi-row batches inside transactions, so a million
 * marbles load in about a minute.
 */
import { DataSource, QueryRunner } from 'typeorm';
import { toDatabaseTimestamp } from '../rest/core/list-query';

export interface DemoDataOptions {
  /** Number of marbles; the large benchmark mode raises it. Default 120. */
  marbles?: number;
  /** Called after each batch with rows done and rows in all. */
  progress?: (done: number, total: number) => void;
}

/** Tables in an order that lets rows be deleted without breaking a foreign key. */
const TABLES = [
  'idempotency_keys',
  'movies_users',
  'genres_movies',
  'movies',
  'phone_numbers',
  'marbles',
  'emails',
  'users',
  'genres',
];

const FIRST = [
  'ann',
  'bob',
  'cleo',
  'dev',
  'eve',
  'finn',
  'gus',
  'hana',
  'ivo',
  'jade',
  'kai',
  'lena',
  'milo',
  'nora',
  'otto',
  'pia',
  'quin',
  'rosa',
  'sam',
  'tess',
];
const LAST = ['archer', 'baker', 'cooper', 'dyer', 'fisher'];
const COLORS = [
  'Amber',
  'Azure',
  'Cobalt',
  'Coral',
  'Crimson',
  'Emerald',
  'Ivory',
  'Jade',
  'Onyx',
  'Opal',
  'Ruby',
  'Saffron',
];
const KINDS = [
  'Aggie',
  'Bumblebee',
  "Cat's Eye",
  'Clearie',
  'Galaxy',
  'Oxblood',
  'Swirl',
  'Tiger Eye',
  'Vortex',
  'Steelie',
];
const GENRES = [
  'Action',
  'Adventure',
  'Animation',
  'Comedy',
  'Documentary',
  'Drama',
  'Fantasy',
  'Horror',
  'Romance',
  'Science Fiction',
];
const MOVIES = [
  'The Long Voyage',
  'Midnight Harbor',
  'Paper Lanterns',
  'The Glass Orchard',
  'Northern Lights',
  'A Quiet Engine',
  'Salt and Cedar',
  'The Last Cartographer',
  'Iron Meadow',
  'Small Hours',
  'The Copper Fox',
  'Velvet Static',
  'Under the Viaduct',
  'Seven Bridges',
  'The Lighthouse Keeper',
  'Borrowed Thunder',
  'Winter Orchard',
  'The Tin Astronomer',
  'Hollow Creek',
  'Marble Skies',
  "The Weaver's Daughter",
  'Signal Fires',
  'Open Water',
  'The Clockmaker',
  'Desert Rain',
  'Parallel Streets',
  'Echo Valley',
  'The Final Draft',
  'Lantern Festival',
  'Golden Hour',
];

/** Mulberry32: a small seeded generator, so every run draws the same numbers. */
function random(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) };
}

const EPOCH = Date.UTC(2024, 0, 1);

function stamp(i: number, offsetHours = 0): string {
  return toDatabaseTimestamp(new Date(EPOCH + (i + offsetHours) * 3_600_000 + ((i * 37) % 1000)));
}

function cents(value: number): string {
  return (value / 100).toFixed(2);
}

type Row = unknown[];

export class DemoData {
  constructor(private readonly dataSource: DataSource) {}

  async isEmpty(): Promise<boolean> {
    const [row] = await this.dataSource.query('SELECT COUNT(*) AS n FROM users');
    return Number(row.n) === 0;
  }

  /** Deletes every row of every table. */
  async clear(): Promise<void> {
    await this.transaction(async (runner) => {
      await runner.query(`UPDATE ${this.q('users')} SET ${this.q('email_id')} = NULL`);
      for (const table of TABLES) await runner.query(`DELETE FROM ${this.q(table)}`);
    });
  }

  /**
   * Sets every table's id counter back to where a new database has it, so that after `clear()`
   * and `load()` the next record gets the id it would get on a fresh database (MySQL's
   * AUTO_INCREMENT; SQLite's sqlite_sequence, kept by AUTOINCREMENT tables). The tables must be
   * empty. On MySQL each ALTER TABLE commits on its own.
   */
  async resetIds(): Promise<void> {
    if (this.dataSource.driver.options.type === 'mysql') {
      // On an empty InnoDB table the counter becomes 1; loading explicit ids moves it past them.
      for (const table of TABLES)
        await this.dataSource.query(`ALTER TABLE ${this.q(table)} AUTO_INCREMENT = 1`);
      return;
    }
    const [sequence] = await this.dataSource.query(
      "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'",
    );
    if (Number(sequence.n) === 0) return;
    await this.dataSource.query(
      `DELETE FROM sqlite_sequence WHERE name IN (${TABLES.map(() => '?').join(', ')})`,
      TABLES,
    );
  }

  async load(options: DemoDataOptions = {}): Promise<void> {
    const rnd = random(20240501);
    const users: Row[] = [];
    for (let i = 0; i < 100; i++) {
      users.push([i + 1, `${FIRST[i % 20]}.${LAST[Math.floor(i / 20)]}`]);
    }

    // 150 e-mails: the first 50 users have two, the rest one. Most users have a primary one;
    // every third user has a billing address, sometimes one owned by another user.
    const emails: Row[] = [];
    const billing: [number, number][] = [];
    const billed = new Set<number>();
    let emailId = 0;
    for (const [userId, login] of users as [number, string][]) {
      const count = userId <= 50 ? 2 : 1;
      const primary = userId % 5 === 0 ? -1 : rnd.int(0, count - 1);
      for (let k = 0; k < count; k++) {
        emailId++;
        const domain = ['example.com', 'example.org', 'mail.example.net'][(userId + k) % 3];
        const address =
          k === 0 ? `${login}@${domain}` : `${login}.${['work', 'home'][userId % 2]}@${domain}`;
        emails.push([emailId, address, k === primary ? 1 : 0, userId]);
      }
      const billingEmail = userId % 9 === 0 ? ((emailId + 17) % 150) + 1 : emailId;
      if (userId % 3 === 0 && !billed.has(billingEmail)) {
        billed.add(billingEmail);
        billing.push([userId, billingEmail]);
      }
    }

    const genres: Row[] = GENRES.map((name, i) => [i + 1, name]);

    const movies: Row[] = [];
    const genresMovies: Row[] = [];
    const moviesUsers: Row[] = [];
    MOVIES.forEach((name, i) => {
      const id = i + 1;
      const price = i % 6 === 5 ? null : cents(rnd.int(199, 2999) - (i % 4 === 0 ? 99 : 0));
      const main = (i % GENRES.length) + 1;
      movies.push([id, name, price, main, stamp(i * 24), stamp(i * 24, 12)]);
      const extra = new Set([main]);
      for (let k = rnd.int(0, 2); k > 0; k--) extra.add(rnd.int(1, GENRES.length));
      for (const genre of extra) genresMovies.push([id, genre]);
      const owners = new Set<number>();
      for (let k = i % 4; k > 0; k--) owners.add(rnd.int(1, 100));
      for (const user of owners) moviesUsers.push([id, user]);
    });

    const phones: Row[] = [];
    for (let i = 0; i < 100; i++) {
      const [a, b, c] = [
        200 + ((i * 7) % 800),
        100 + ((i * 131) % 900),
        1000 + ((i * 7919) % 9000),
      ];
      const styles = [
        `${a}.${b}.${c}`,
        `${a}-${b}-${c}`,
        `(${a}) ${b}-${c}`,
        `+1 ${a} ${b} ${c}`,
        `${a} ${b} ${c}`,
        `+44 (0)20 ${b} ${c}`,
      ];
      phones.push([i + 1, styles[i % styles.length], (i % 100) + 1]);
    }

    const marbleCount = options.marbles ?? 120;
    const total =
      users.length + emails.length + genres.length + movies.length + phones.length + marbleCount;
    let done = 0;
    const report = (n: number) => {
      done += n;
      options.progress?.(done, total);
    };

    await this.transaction(async (runner) => {
      await this.insert(runner, 'users', ['id', 'login'], users);
      await this.insert(runner, 'emails', ['id', 'email', 'is_primary', 'user_id'], emails);
      for (const [userId, email] of billing) {
        await runner.query(
          `UPDATE ${this.q('users')} SET ${this.q('email_id')} = ? WHERE ${this.q('id')} = ?`,
          [email, userId],
        );
      }
      report(users.length + emails.length);
      await this.insert(runner, 'genres', ['id', 'name'], genres);
      await this.insert(
        runner,
        'movies',
        ['id', 'name', 'price', 'main_genre_id', 'created_at', 'updated_at'],
        movies,
      );
      await this.insert(runner, 'genres_movies', ['movie_id', 'genre_id'], genresMovies);
      await this.insert(runner, 'movies_users', ['movie_id', 'user_id'], moviesUsers);
      await this.insert(runner, 'phone_numbers', ['id', 'number', 'user_id'], phones);
      report(genres.length + movies.length + phones.length);
    });

    const columns = [
      'id',
      'name',
      'radius_mm',
      'price',
      'is_discounted',
      'created_at',
      'updated_at',
      'user_id',
      'description',
      'picture',
    ];
    const batch = 1000;
    for (let start = 0; start < marbleCount; start += batch) {
      const rows: Row[] = [];
      for (let i = start; i < Math.min(start + batch, marbleCount); i++) rows.push(marble(i, rnd));
      await this.transaction((runner) => this.insert(runner, 'marbles', columns, rows));
      report(rows.length);
    }
  }

  private async insert(runner: QueryRunner, table: string, columns: string[], rows: Row[]) {
    const width = columns.length;
    const perStatement = Math.floor(10_000 / width);
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      await runner.query(
        `INSERT INTO ${this.q(table)} (${columns.map((c) => this.q(c)).join(', ')}) VALUES ` +
          chunk.map(() => tuple).join(', '),
        chunk.flat(),
      );
    }
  }

  private async transaction<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const result = await work(runner);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      await runner.rollbackTransaction();
      throw error;
    } finally {
      await runner.release();
    }
  }

  private q(name: string): string {
    return this.dataSource.driver.escape(name);
  }
}

function marble(i: number, rnd: ReturnType<typeof random>): Row {
  const id = i + 1;
  const color = COLORS[i % COLORS.length];
  const kind = KINDS[Math.floor(i / COLORS.length) % KINDS.length];
  const series = Math.floor(i / (COLORS.length * KINDS.length));
  const name = series === 0 ? `${color} ${kind}` : `${color} ${kind} ${series + 1}`;
  const price =
    i % 10 === 9 ? null : i % 8 === 0 ? `${rnd.int(1, 40)}.00` : cents(rnd.int(25, 9999));
  const description =
    i % 5 === 4 ? '' : `${kind} in ${color.toLowerCase()} glass; 100% hand-made_${series + 1}.`;
  const created = stamp(i);
  return [
    id,
    name,
    1 + ((i * 7) % 30),
    price,
    rnd.next() < 0.3 ? 1 : 0,
    created,
    i % 3 === 0 ? created : stamp(i, 48),
    i % 7 === 6 ? null : (i % 100) + 1,
    description,
    null,
  ];
}
