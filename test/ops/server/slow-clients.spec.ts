/**
 * Slow clients: a request whose header or body is trickled in is answered 408 and closed after
 * HEADERS_TIMEOUT and REQUEST_TIMEOUT (10 s and 20 s by default), while other clients are served;
 * an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT.
 */
import { ServerProcess, sqliteUrl, startServer, waitFor } from '../support/process';
import { RawConnection, unfinishedRequests } from '../support/raw-connection';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts a server on a new SQLite file, without demo data, and waits until it is ready. */
async function readyServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServer({ DATABASE_URL: sqliteUrl(), DEMO_DATA: 'false', ...env });
  await server.waitReady();
  return server;
}

describe('slow clients', () => {
  it('should answer 408 to a header trickled past 10 s and a body trickled past 20 s (the defaults), serving others meanwhile', async () => {
    const server = await readyServer();
    const { headers, body, started, trickle } = await unfinishedRequests(
      server.port,
      100_000,
      '{"address": "',
    );
    const closedAt: Record<string, number> = {};
    const watch = (name: string, c: RawConnection) =>
      waitFor(() => c.closed, `${name} to be closed`, 40_000, 100).then(
        () => (closedAt[name] = Date.now() - started),
      );
    const trickling = Promise.all([
      trickle(40_000, 'x'),
      watch('headers', headers),
      watch('body', body),
    ]);
    // Normal traffic keeps being answered beside them.
    const statuses: number[] = [];
    while (!(headers.closed && body.closed) && Date.now() - started < 40_000) {
      const res = await fetch(server.url('/api/demo/emails/ping'));
      await res.arrayBuffer();
      statuses.push(res.status);
      await sleep(200);
    }
    await trickling;

    expect(headers.pending).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(body.pending).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(closedAt.headers).toBeGreaterThanOrEqual(9_500);
    expect(closedAt.headers).toBeLessThan(closedAt.body);
    expect(closedAt.body).toBeGreaterThanOrEqual(19_500);
    expect(closedAt.body).toBeLessThan(30_000);
    expect(statuses.length).toBeGreaterThan(20);
    expect(new Set(statuses)).toEqual(new Set([200]));
    server.child.kill('SIGTERM');
    expect((await server.waitExit()).code).toBe(0);
  }, 90_000);

  it('should take HEADERS_TIMEOUT, REQUEST_TIMEOUT and KEEP_ALIVE_TIMEOUT in seconds', async () => {
    const server = await readyServer({
      HEADERS_TIMEOUT: '2',
      REQUEST_TIMEOUT: '4',
      KEEP_ALIVE_TIMEOUT: '1',
    });
    const idle = new RawConnection(server.port);
    await idle.connected;
    idle.send('GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const live = await idle.response();
    expect(live.headers['keep-alive']).toBe('timeout=1');
    const { headers, body, started, trickle } = await unfinishedRequests(server.port, 1000, '{');
    await trickle(20_000, ' ');
    const took = Date.now() - started;
    expect(idle.closed).toBe(true);
    expect(headers.pending).toMatch(/^HTTP\/1\.1 408 /);
    expect(body.pending).toMatch(/^HTTP\/1\.1 408 /);
    expect(took).toBeGreaterThanOrEqual(3_500);
    expect(took).toBeLessThan(15_000);
    server.child.kill('SIGTERM');
    expect((await server.waitExit()).code).toBe(0);
  });
});
