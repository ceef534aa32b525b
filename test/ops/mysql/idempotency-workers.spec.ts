/**
 * Idempotency-Key under contention across the worker processes of WEB_CONCURRENCY=2, on MySQL:
 * 50 and 200 concurrent requests with one key write one record, and no answer is a 5xx (the
 * two workers' transactions with the key never deadlock, so none runs out of retries).
 *
 * Needs MySQL: OPS_MYSQL_URL names the server (mysql://root@127.0.0.1:3306).
 */
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { crowd, expectOneWrite, tally } from '../idempotency-crowd';
import { cleanup, ServerProcess, startServer } from '../process';

const serverUrl = process.env.OPS_MYSQL_URL;
if (!serverUrl) {
  throw new Error(
    'OPS_MYSQL_URL is not set: this suite needs a MySQL server (e.g. mysql://root@127.0.0.1:3306).',
  );
}

const database = `records_ops_crowd_${randomBytes(4).toString('hex')}`;
let admin: mysql.Connection;
let server: ServerProcess;

beforeAll(async () => {
  const url = new URL(serverUrl);
  url.pathname = '/';
  admin = await mysql.createConnection({ uri: url.toString(), connectTimeout: 5000 });
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  url.pathname = `/${database}`;
  server = await startServer({ DATABASE_URL: url.toString(), WEB_CONCURRENCY: '2' });
  await server.waitReady();
});

afterAll(async () => {
  await cleanup();
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.end();
});

describe('Idempotency-Key with WEB_CONCURRENCY=2 on MySQL', () => {
  it.each([50, 200])('should write once for %i concurrent requests with one key', async (n) => {
    const results = await crowd(server, `workers-${n}`, n);
    console.log(
      `${n} concurrent requests, one key, 2 workers, MySQL: ${JSON.stringify(tally(results))}`,
    );
    expectOneWrite(results);
    const [rows] = await admin.query(`SELECT id FROM \`${database}\`.marbles WHERE name = ?`, [
      `Crowd workers-${n}`,
    ]);
    expect(rows).toHaveLength(1);
  });
});
