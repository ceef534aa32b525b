/**
 * WEB_CONCURRENCY=2: two worker processes share the port, both serve requests, and SIGTERM
 * drains both and exits 0. A worker that fails to start stops the service.
 */
import { ServerProcess, sqliteUrl, startServer } from '../support/process';

const START = 60_000;

/** The pids of the access lines for `path`. */
function servedBy(server: ServerProcess, path: string): Set<number> {
  return new Set(
    server
      .jsonLines()
      .filter((e) => (e.req as { path?: string } | undefined)?.path === path)
      .map((e) => e.pid as number),
  );
}

describe('WEB_CONCURRENCY=2', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({ DATABASE_URL: sqliteUrl(), WEB_CONCURRENCY: '2' });
    // Both workers say they listen; the second starts once the first does.
    await server.waitForLog((e) => e.context === 'Bootstrap', START);
    await server.waitForLog(
      (e) =>
        e.context === 'Bootstrap' &&
        e.pid !== server.jsonLines().find((f) => f.context === 'Bootstrap')!.pid,
      START,
    );
  }, START * 2);

  afterAll(() => server.child.kill('SIGKILL'));

  it('should serve from two worker processes, neither of them the primary', async () => {
    const path = '/api/demo/marbles/1';
    // New connections: the workers accept from one socket (SCHED_NONE), and the kernel decides
    // which one takes each, not in turn; 40 leave no doubt that both do.
    for (let i = 0; i < 40; i++) {
      const res = await fetch(server.url(path), { headers: { Connection: 'close' } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    // Each worker writes its access lines within its log flush interval: wait for both.
    await server.waitForLog(() => servedBy(server, path).size >= 2, 10_000);
    const pids = servedBy(server, path);
    expect(pids.size).toBe(2);
    expect(pids.has(server.child.pid!)).toBe(false);
  }, 30_000);

  it('should drain both workers on SIGTERM and exit 0', async () => {
    server.child.kill('SIGTERM');
    const exit = await server.waitExit(30_000);
    expect(exit.code).toBe(0);
    const draining = server.jsonLines().filter((e) => e.context === 'Shutdown');
    expect(new Set(draining.map((e) => e.pid)).size).toBe(2);
  }, 40_000);
});

describe('WEB_CONCURRENCY with a worker that cannot start', () => {
  it('should stop the service with exit 1 instead of restarting it forever', async () => {
    // A MySQL URL that refuses connections: the first worker never listens.
    const server = await startServer({
      DATABASE_URL: 'mysql://root@127.0.0.1:9/records',
      WEB_CONCURRENCY: '2',
    });
    const exit = await server.waitExit(90_000);
    expect(exit.code).toBe(1);
    expect(server.stdout.join('\n')).toContain('failed to start');
  }, 100_000);
});
