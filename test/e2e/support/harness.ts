/**
 * The e2e harness: the real application (AppModule, with the HTTP setup of main.ts) on the
 * database the test runner chose, TEST_DATABASE=sqlite (a fresh file per suite, copied from a
 * file migrated once per run and set of migrations) or TEST_DATABASE=mysql (TEST_MYSQL_URL, the
 * Jest worker's own database `<database>_<worker>` (worker-database.ts), emptied before each
 * suite). Demo data is off; a suite
 * declares its own rows. A MySQL database is used only when the tests created it (it holds their
 * marker table, scripts/test-database.js) or it is new or empty; anyone else's stops the suite.
 *
 *     const t = useApp({ apiToken: TOKEN, seed: { users: USERS, marbles: [AMBER] } });
 *
 * registers the hooks that start the app, seed it, and close it, so a suite states only what it
 * tests. The application comes through test/sources.ts, the suites' one door into src/.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { contractOf } from './contract';
import {
  APP_OPTIONS,
  ApiDocs,
  AppConfig,
  AppModule,
  COLLECTIONS,
  Collection,
  DatabaseConfig,
  DemoData,
  configureApp,
  loadConfig,
  migrationsOf,
  openDatabase,
  dataSourceOptions,
  parseDatabaseUrl,
  scalarFields,
} from '../../sources';
import { DEFAULT_TEST_MYSQL_URL, claimTestDatabase } from '../../../scripts/test-database';

export type Row = Record<string, unknown>;

/** Rows by table, inserted in the order the tables are named (users before what they own). */
export type Tables = Record<string, Row[]>;

/** What a suite starts from: rows by table, or steps of its own (HTTP calls, updates). */
export type Seed = Tables | ((t: TestApp) => Promise<void>);

export interface AppOptions extends Partial<AppConfig> {
  /** The collections the app serves: `COLLECTIONS` unless the suite adds its own. */
  collections?: readonly Collection[];
  /** Once, after the app has started: the rows every test of the suite reads. */
  seed?: Seed;
  /** Before each test, on emptied tables whose ids start again at 1: the rows each test changes. */
  seedEach?: Seed;
}

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';

/** A request as a record: the method (GET if left out), path, Accept, Content-Type, other headers, body. */
export interface Call {
  method?: Method;
  path: string;
  accept?: string;
  type?: string;
  headers?: Record<string, string>;
  body?: string | object;
}

/** A response with the window of time around its request, for server-set timestamps. */
export interface Timed {
  res: Response;
  before: number;
  after: number;
}

/** Methods whose responses are checked against the OpenAPI document. */
const CHECKED = new Set(['get', 'post', 'put', 'patch', 'delete', 'options']);

/** Starting, seeding and closing the app: generous, for a loaded machine or a far MySQL. */
export const HOOK_TIMEOUT = 60_000;

/** The columns of the collections' fields of a type, by table: `stored()` reads them alike. */
function columnsOfType(
  collections: readonly Collection[],
  type: 'boolean' | 'decimal',
): Map<string, Set<string>> {
  return new Map(
    collections.map(({ declaration }) => [
      declaration.table,
      new Set(
        scalarFields(declaration)
          .filter((f) => f.type === type)
          .map((f) => f.column),
      ),
    ]),
  );
}

/**
 * Where the run's SQLite files go: the folder the e2e project's global setup made for the run
 * (removed by its teardown, global-setup.js), or the system temp directory.
 */
function filesDir(): string {
  return process.env.RECORDS_E2E_DIR && existsSync(process.env.RECORDS_E2E_DIR)
    ? process.env.RECORDS_E2E_DIR
    : tmpdir();
}

export function testDatabase(): DatabaseConfig {
  const kind = process.env.TEST_DATABASE ?? 'sqlite';
  if (kind === 'mysql') {
    const parsed = parseDatabaseUrl(process.env.TEST_MYSQL_URL ?? DEFAULT_TEST_MYSQL_URL);
    if (typeof parsed === 'string') throw new Error(`TEST_MYSQL_URL ${parsed}`);
    return parsed;
  }
  return {
    type: 'sqlite',
    path: join(mkdtempSync(join(filesDir(), 'records-e2e-')), 'test.sqlite'),
  };
}

/**
 * A SQLite file on which `collections`' migrations have run: made once per run and set of
 * migrations (named by their hash, in the run's folder; written aside, then renamed into place,
 * so that two workers making it at once both end with a whole file), and copied for each app
 * instead of migrating a new file again. The app still runs its migrations on the copy, and
 * finds every one of them done.
 */
async function migratedSqlite(collections: readonly Collection[]): Promise<string> {
  const migrations = migrationsOf(collections);
  const key = createHash('sha256')
    .update(migrations.map((m) => m.name).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const file = join(filesDir(), `records-e2e-migrated-${key}.sqlite`);
  if (existsSync(file)) return file;
  const making = `${file}.${process.pid}.${Date.now()}`;
  const dataSource = await openDatabase(
    dataSourceOptions({ type: 'sqlite', path: making }, [], migrations),
  );
  // Closing the last connection writes the WAL back into the file and removes it.
  await dataSource.destroy();
  renameSync(making, file);
  return file;
}

/** Checked once per process: the MySQL test database is the tests' to empty. */
let claimed: Promise<void> | undefined;
function claimMysql(url: string): Promise<void> {
  claimed ??= claimTestDatabase(url).then((problem) => {
    if (problem) throw new Error(problem);
  });
  return claimed;
}

/** A decimal in canonical form (`12.50` → `12.5`, `4` → `4.0`), or null. */
export function canonical(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const [whole, fraction = ''] = String(value).split('.');
  return `${whole}.${fraction.replace(/0+$/, '') || '0'}`;
}

/** The running application and its database. */
export class TestApp {
  app!: NestExpressApplication;
  dataSource!: DataSource;
  dialect!: 'sqlite' | 'mysql';
  /** Whether the database is a Galera cluster (several nodes in TEST_MYSQL_URL). */
  cluster = false;
  /** The demo data of the app's collections: `clear()` and `resetIds()` serve `fresh()`. */
  demoData!: DemoData;
  /** Columns MySQL hands back as 1/0 and `12.50`, by table, from the declarations. */
  private booleans = new Map<string, Set<string>>();
  private decimals = new Map<string, Set<string>>();

  /** Starts the app, serving `collections`, on emptied tables. */
  async start(
    overrides: Partial<AppConfig> = {},
    collections: readonly Collection[] = COLLECTIONS,
  ): Promise<this> {
    const database = testDatabase();
    if (database.type === 'mysql') await claimMysql(database.url);
    const config: AppConfig = {
      ...loadConfig({}),
      database,
      demoData: false,
      logLevel: 'silent',
      ...overrides,
    };
    // A new SQLite file starts as a copy of the migrated one (a file another app of the suite
    // uses already is left as it is).
    if (
      config.database.type === 'sqlite' &&
      config.database.path !== ':memory:' &&
      !existsSync(config.database.path)
    ) {
      mkdirSync(dirname(config.database.path), { recursive: true });
      copyFileSync(await migratedSqlite(collections), config.database.path);
    }
    const moduleRef = await Test.createTestingModule({
      imports: [AppModule.register(config, collections)],
    }).compile();
    this.app = configureApp(
      moduleRef.createNestApplication<NestExpressApplication>({
        ...APP_OPTIONS,
        bufferLogs: false,
        logger: ['error', 'warn'],
      }),
    );
    await this.app.init();
    this.dataSource = this.app.get(DataSource);
    this.demoData = this.app.get(DemoData);
    this.dialect = config.database.type;
    this.cluster = database.type === 'mysql' && (database.nodes?.length ?? 0) > 1;
    this.booleans = columnsOfType(collections, 'boolean');
    this.decimals = columnsOfType(collections, 'decimal');
    await this.fresh();
    return this;
  }

  /**
   * supertest on the app. Every response is checked against the app's OpenAPI document
   * (contract.ts): one the document does not describe fails the request with the reason.
   */
  http(): ReturnType<typeof request> {
    const agent = request(this.app.getHttpServer());
    const contract = contractOf(this.app.get(ApiDocs).serviceDocument);
    return new Proxy(agent, {
      get(target, name: string) {
        const value = (target as unknown as Record<string, unknown>)[name];
        if (!CHECKED.has(name) || typeof value !== 'function') return value;
        return (url: string) => {
          const test = (value as (url: string) => request.Test).call(target, url);
          const end = test.end.bind(test);
          test.end = (callback = () => undefined) =>
            end((error, res) => {
              if (error || !res) return callback(error, res);
              contract.check(name.toUpperCase(), url, res).then(
                (problem) => callback(problem ? new Error(`OpenAPI: ${problem}`) : null, res),
                (thrown: Error) => callback(new Error(`OpenAPI: ${url}: ${thrown.message}`), res),
              );
            });
          return test;
        };
      },
    });
  }

  /** One request, described as a record: `t.request({ method: 'post', path, accept, body })`. */
  request({ method = 'get', path, accept, type, headers = {}, body }: Call): request.Test {
    let req = this.http()[method](path);
    if (accept !== undefined) req = req.set('Accept', accept);
    if (type !== undefined) req = req.set('Content-Type', type);
    for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
    return body === undefined ? req : req.send(body);
  }

  /** `body` as it is, under the Content-Type `type`. */
  raw(method: Method, path: string, type: string, body: string): request.Test {
    return this.request({ method, path, type, body });
  }

  /** Sends `body` as JSON. */
  async send(method: Method, path: string, body: unknown): Promise<Timed> {
    const before = Date.now();
    const res = await this.http()
      [method](path)
      .send(body as object);
    return { res, before, after: Date.now() };
  }

  /** Sends `body` as it is, under the Content-Type `type`. */
  async sendRaw(method: Method, path: string, type: string, body: string): Promise<Timed> {
    const before = Date.now();
    const res = await this.raw(method, path, type, body);
    return { res, before, after: Date.now() };
  }

  /**
   * Deletes every row of every table: the collections' and shared ones (DemoData), and the
   * webhook subscriptions with their attempts (the service's own, which demo data never touches).
   */
  async reset(): Promise<void> {
    await this.demoData.clear();
    await this.dataSource.query(`DELETE FROM ${this.quote('webhook_deliveries')}`);
    await this.dataSource.query(`DELETE FROM ${this.quote('webhook_subscriptions')}`);
  }

  /** Empties every table and restarts the id sequences, so new records get ids 1, 2, … */
  async fresh(): Promise<void> {
    await this.reset();
    await this.demoData.resetIds();
    await this.settle();
  }

  /**
   * On a Galera cluster, waits until every node has applied what was committed so far: the tests
   * write their rows through the first node, around the service, whose reads go to any node (a
   * node applies another's write a moment after it was certified). `wsrep_sync_wait` makes a
   * node's read wait until it has applied everything committed in the cluster before it.
   */
  async settle(): Promise<void> {
    if (!this.cluster) return;
    type Pool = { query(sql: string, done: (error: Error | null) => void): void };
    const { poolCluster } = this.dataSource.driver as unknown as {
      poolCluster: { _nodes: Record<string, { pool: Pool }> };
    };
    const sql = `SET STATEMENT wsrep_sync_wait=1 FOR SELECT COUNT(*) FROM ${this.quote('users')}`;
    await Promise.all(
      Object.values(poolCluster._nodes).map(
        ({ pool }) =>
          new Promise<void>((resolve, reject) =>
            pool.query(sql, (error) => (error ? reject(error) : resolve())),
          ),
      ),
    );
  }

  /** A statement through the first node; on a cluster, a write is settled on every node. */
  async query(sql: string, parameters?: unknown[]): Promise<Row[]> {
    const rows = await this.dataSource.query(sql, parameters);
    if (!/^\s*(SELECT|SHOW|EXPLAIN)\b/i.test(sql)) await this.settle();
    return rows;
  }

  /**
   * Inserts rows as given (column names, explicit ids), in order: neighbouring rows with the same
   * columns go in one statement of up to 500 rows.
   */
  async insert(table: string, rows: Row[]): Promise<void> {
    for (let start = 0; start < rows.length;) {
      const columns = Object.keys(rows[start]);
      const key = columns.join();
      let end = start + 1;
      while (end < rows.length && end - start < 500 && Object.keys(rows[end]).join() === key) end++;
      const batch = rows.slice(start, end);
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      await this.query(
        `INSERT INTO ${this.quote(table)} (${columns.map((c) => this.quote(c)).join(', ')}) VALUES ` +
          batch.map(() => tuple).join(', '),
        batch.flatMap((row) =>
          columns.map((c) => (typeof row[c] === 'boolean' ? (row[c] ? 1 : 0) : row[c])),
        ),
      );
      start = end;
    }
  }

  /** Inserts the rows of each table, table by table. */
  async insertAll(tables: Tables): Promise<void> {
    for (const [table, rows] of Object.entries(tables)) await this.insert(table, rows);
  }

  async seed(seed: Seed | undefined): Promise<void> {
    if (typeof seed === 'function') await seed(this);
    else if (seed) await this.insertAll(seed);
  }

  /** Rows of a table as the driver returns them, ordered by id (or `orderBy`, comma-separated). */
  rows(table: string, orderBy = 'id'): Promise<Row[]> {
    const order = orderBy
      .split(',')
      .map((c) => this.quote(c))
      .join(', ');
    return this.query(`SELECT * FROM ${this.quote(table)} ORDER BY ${order}`);
  }

  /**
   * The id of the one row of `table`: the record a request just created on emptied tables. The
   * database chooses ids (on a Galera cluster, in the cluster's steps: not 1, 2, 3 after a reset).
   */
  async onlyId(table: string): Promise<number> {
    const rows = await this.rows(table);
    if (rows.length !== 1) throw new Error(`${table} holds ${rows.length} rows, not one`);
    return Number(rows[0].id);
  }

  /** The highest id of `table`: the record a request just created (ids grow on the writer). */
  async lastId(table: string): Promise<number> {
    const ids = await this.ids(table);
    if (ids.length === 0) throw new Error(`${table} holds no row`);
    return ids[ids.length - 1];
  }

  /** The ids of `table`'s rows, in order: records just created, where ids are the database's. */
  async ids(table: string): Promise<number[]> {
    return (await this.rows(table)).map((row) => Number(row.id));
  }

  /**
   * The rows of a table, ordered by id (or `orderBy`), the same on both databases: booleans as
   * booleans, decimals canonical, MySQL's generated `primary_user_id` and `description_key`
   * columns and the `version`
   * (bookkeeping of ETags, test/e2e/safe-writes/preconditions) left out.
   */
  async stored(table: string, orderBy?: string): Promise<Row[]> {
    const rows = await this.rows(table, orderBy);
    const booleans = this.booleans.get(table) ?? new Set();
    const decimals = this.decimals.get(table) ?? new Set();
    return rows.map((row) => {
      const out: Row = {};
      for (const [key, value] of Object.entries(row)) {
        if (key === 'primary_user_id' || key === 'description_key' || key === 'version') continue;
        if (booleans.has(key)) out[key] = Number(value) === 1;
        else if (decimals.has(key)) out[key] = canonical(value);
        else if (typeof value === 'bigint') out[key] = Number(value);
        else out[key] = value;
      }
      return out;
    });
  }

  /** Rows of a join table as [movie, genre or user] pairs. */
  async links(table: 'genres_movies' | 'movies_users'): Promise<number[][]> {
    const target = table === 'genres_movies' ? 'genre_id' : 'user_id';
    const rows = await this.rows(table, `movie_id,${target}`);
    return rows.map((r) => [Number(r.movie_id), Number(r[target])]);
  }

  /**
   * Transactions open on the app's database (SQLite: its one connection's; MySQL: of any
   * connection to it but this one's and `besides`' threads): 0 once a failed write rolled back.
   * With `startedBy` (the database's NOW(), see `databaseNow`), only those that started by then:
   * the app's own background work (the feed's sequencer, webhook deliveries) starts transactions
   * of its own after a failed write, which are none of its leftovers.
   */
  async openTransactions(besides: number[] = [], startedBy?: string): Promise<number> {
    if (this.dialect === 'sqlite') {
      const driver = this.dataSource.driver as unknown as {
        databaseConnection: { inTransaction: boolean };
      };
      return driver.databaseConnection.inTransaction ? 1 : 0;
    }
    const [row] = await this.query(
      'SELECT COUNT(*) AS n FROM information_schema.innodb_trx x' +
        ' JOIN information_schema.processlist p ON p.id = x.trx_mysql_thread_id' +
        ' WHERE p.db = DATABASE() AND p.id <> CONNECTION_ID()' +
        besides.map(() => ' AND p.id <> ?').join('') +
        (startedBy === undefined ? '' : ' AND x.trx_started <= ?'),
      startedBy === undefined ? besides : [...besides, startedBy],
    );
    return Number(row.n);
  }

  /** The database's clock now (MySQL: `NOW()`, to the second), for `openTransactions`. */
  async databaseNow(): Promise<string | undefined> {
    if (this.dialect === 'sqlite') return undefined;
    const [row] = await this.query("SELECT DATE_FORMAT(NOW(), '%Y-%m-%d %H:%i:%s') AS now");
    return String(row.now);
  }

  async close(): Promise<void> {
    await this.app?.close();
  }

  private quote(name: string): string {
    return this.dataSource.driver.escape(name);
  }
}

/**
 * The app of a suite (or of a `describe`): started and seeded before its first test, closed after
 * its last, and with `seedEach`, emptied and seeded again before each test. `options` may be a
 * function when the configuration is known only once earlier hooks have run.
 */
export function useApp(options: AppOptions | (() => AppOptions) = {}): TestApp {
  const t = new TestApp();
  let seedEach: Seed | undefined;
  beforeAll(async () => {
    const {
      seed,
      seedEach: each,
      collections,
      ...overrides
    } = typeof options === 'function' ? options() : options;
    seedEach = each;
    await t.start(overrides, collections);
    await t.seed(seed);
  }, HOOK_TIMEOUT);
  beforeEach(async () => {
    if (!seedEach) return;
    await t.fresh();
    await t.seed(seedEach);
  }, HOOK_TIMEOUT);
  afterAll(() => t.close(), HOOK_TIMEOUT);
  return t;
}
