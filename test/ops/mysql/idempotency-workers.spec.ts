/**
 * Idempotency-Key under contention across the worker processes of WEB_CONCURRENCY=2, on MySQL:
 * 50 and 200 concurrent requests with one key write one record, and no answer is a 5xx (the
 * two workers' transactions with the key never deadlock, so none runs out of retries).
 *
 * Needs MySQL: OPS_MYSQL_URL names the server (mysql://root@127.0.0.1:3306).
 */
import { crowd, expectOneWrite, tally } from '../workers/idempotency-crowd';
import { ServerProcess, startServer } from '../support/process';
import { useOwnDatabase } from './own-database';

const own = useOwnDatabase('ops_crowd');
const database = own.name;
let server: ServerProcess;

beforeAll(async () => {
  server = await startServer({ DATABASE_URL: own.url, WEB_CONCURRENCY: '2' });
  await server.waitReady();
});

describe('Idempotency-Key with WEB_CONCURRENCY=2 on MySQL', () => {
  it.each([50, 200])('should write once for %i concurrent requests with one key', async (n) => {
    const results = await crowd(server, `workers-${n}`, n);
    console.log(
      `${n} concurrent requests, one key, 2 workers, MySQL: ${JSON.stringify(tally(results))}`,
    );
    expectOneWrite(results);
    const [rows] = await own.admin.query(`SELECT id FROM \`${database}\`.marbles WHERE name = ?`, [
      `Crowd workers-${n}`,
    ]);
    expect(rows).toHaveLength(1);
  });
});
