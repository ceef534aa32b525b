/**
 * `npm run seed -- --reset` on MySQL: the id counters (AUTO_INCREMENT) go back to those of a
 * fresh database, so the next record created gets the id it would get there.
 *
 * Needs MySQL: OPS_MYSQL_URL names the server (mysql://root@127.0.0.1:3306). `npm test` sets it
 * when it prepared MySQL and leaves this directory out otherwise.
 */
import mysql from 'mysql2/promise';
import { ownDatabaseName } from '../../../scripts/test-database';
import { cleanup } from '../support/process';
import { createRecords, FRESH_IDS, seed } from '../server/seed-ids';

const serverUrl = process.env.OPS_MYSQL_URL;
if (!serverUrl) {
  throw new Error(
    'OPS_MYSQL_URL is not set: this suite needs a MySQL server (e.g. mysql://root@127.0.0.1:3306).',
  );
}

// Every test here runs the seed script or the server: none may fail on Jest's 5 s default.
const databases: string[] = [];

async function admin(sql: string): Promise<void> {
  const connection = await mysql.createConnection({ uri: serverUrl, connectTimeout: 5000 });
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}

/** A new, empty database: its URL. */
async function newDatabase(): Promise<string> {
  const name = ownDatabaseName('ops_seed');
  await admin(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  databases.push(name);
  const url = new URL(serverUrl!);
  url.pathname = `/${name}`;
  return url.toString();
}

afterAll(async () => {
  await cleanup();
  for (const name of databases) await admin(`DROP DATABASE IF EXISTS \`${name}\``);
});

describe('npm run seed -- --reset on MySQL', () => {
  it('should give the ids of a fresh database (the next POST gets 121 marbles, not 125)', async () => {
    const fresh = await newDatabase();
    expect((await seed([], fresh)).code).toBe(0);
    expect(await createRecords(fresh)).toEqual(FRESH_IDS);

    const used = await newDatabase();
    expect((await seed([], used)).code).toBe(0);
    await createRecords(used, 4);
    const reset = await seed(['--reset'], used);
    expect(reset).toMatchObject({ code: 0 });
    expect(await createRecords(used)).toEqual(FRESH_IDS);
  });
});
