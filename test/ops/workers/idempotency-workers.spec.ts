/**
 * Idempotency-Key under contention across the worker processes of WEB_CONCURRENCY=2, on SQLite:
 * 50 and 200 concurrent requests with one key write one record, and no answer is a 5xx.
 */
import { crowd, expectOneWrite, tally } from './idempotency-crowd';
import { ServerProcess, sqliteUrl, startServer } from '../support/process';

describe('Idempotency-Key with WEB_CONCURRENCY=2 on SQLite', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ DATABASE_URL: sqliteUrl(), WEB_CONCURRENCY: '2' });
    await server.waitReady();
  });

  it.each([50, 200])('should write once for %i concurrent requests with one key', async (n) => {
    const results = await crowd(server, `workers-${n}`, n);
    console.log(
      `${n} concurrent requests, one key, 2 workers, SQLite: ${JSON.stringify(tally(results))}`,
    );
    expectOneWrite(results);
    const list = await fetch(server.url(`/api/demo/marbles?name=Crowd%20workers-${n}`));
    expect(((await list.json()) as { results: unknown[] }).results).toHaveLength(1);
  });
});
