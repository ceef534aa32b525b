/**
 * Graceful shutdown of the compiled server: on SIGTERM it stops accepting connections, lets the
 * requests in flight finish, and exits 0; after SHUTDOWN_TIMEOUT seconds it gives up and exits 1.
 */
import { ClientRequest, IncomingMessage, request } from 'node:http';
import { connect } from 'node:net';
import { cleanup, ServerProcess, sqliteUrl, startServer } from './process';

afterAll(cleanup);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  body: string;
}

/** A POST whose chunked body is sent in parts, under the test's control. */
function chunkedPost(
  server: ServerProcess,
  path: string,
): { req: ClientRequest; answer: Promise<Answer> } {
  const req = request({
    host: '127.0.0.1',
    port: server.port,
    path,
    method: 'POST',
    agent: false,
    headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  return { req, answer };
}

/** Tries a new TCP connection: 'refused', or 'accepted'. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(2000);
    socket.on('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.on('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' ? 'refused' : error.code!),
    );
  });
}

describe('graceful shutdown', () => {
  it('should finish a request in flight at SIGTERM with 201, refuse new connections, and exit 0 in time', async () => {
    const server = await startServer({ DATABASE_URL: sqliteUrl(), SHUTDOWN_TIMEOUT: '5' });
    await server.waitReady();

    const { req, answer } = chunkedPost(server, '/api/demo/phone_numbers');
    req.write('{"number": "+1 555 0100 ops-shutdown",');
    await sleep(300);

    server.child.kill('SIGTERM');
    const signalled = Date.now();
    await server.waitForLog((e) => e.msg === 'SIGTERM: finishing in-flight requests', 3000);
    // The listener closes right after the log line; allow a loaded machine up to 2 s for that.
    let attempt = await tryConnect(server.port);
    for (const until = Date.now() + 2000; attempt !== 'refused' && Date.now() < until;) {
      await sleep(50);
      attempt = await tryConnect(server.port);
    }
    expect(attempt).toBe('refused');
    await sleep(300);
    expect(server.exit).toBeUndefined(); // still waiting for the request in flight
    expect(await tryConnect(server.port)).toBe('refused');

    req.end(' "user_id": 1}');
    const { status, body } = await answer;
    expect(status).toBe(201);
    expect(JSON.parse(body)).toEqual({
      id: expect.any(Number),
      number: '+1 555 0100 ops-shutdown',
      user: { id: 1, login: expect.any(String) },
    });

    const exit = await server.waitExit(10_000);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(5000);
    const lines = server.jsonLines();
    expect(
      lines.filter((e) => e.req?.path === '/api/demo/phone_numbers' && e.res?.status === 201),
    ).toHaveLength(1);
    expect(lines.filter((e) => e.level >= 50)).toEqual([]);
  });

  it('should have saved the request finished during shutdown (a restart on the same file sees it)', async () => {
    const database = sqliteUrl();
    const first = await startServer({ DATABASE_URL: database, SHUTDOWN_TIMEOUT: '5' });
    await first.waitReady();
    const { req, answer } = chunkedPost(first, '/api/demo/phone_numbers');
    req.write('{"number": "ops-saved-on-shutdown",');
    await sleep(200);
    first.child.kill('SIGTERM');
    await sleep(300);
    req.end('"user_id": 2}');
    expect((await answer).status).toBe(201);
    expect((await first.waitExit(10_000)).code).toBe(0);

    const second = await startServer({ DATABASE_URL: database });
    await second.waitReady();
    const res = await fetch(second.url('/api/demo/phone_numbers?number=ops-saved-on-shutdown'));
    const page = (await res.json()) as { results: { number: string }[] };
    expect(page.results.map((r) => r.number)).toEqual(['ops-saved-on-shutdown']);
    second.child.kill('SIGTERM');
    expect((await second.waitExit()).code).toBe(0);
  });

  it('should exit 0 at once on SIGTERM when idle, even with an idle keep-alive connection open', async () => {
    const server = await startServer({
      DATABASE_URL: sqliteUrl(),
      DEMO_DATA: 'false',
      SHUTDOWN_TIMEOUT: '10',
    });
    await server.waitReady();
    // fetch keeps its connection alive for reuse: an idle socket that must not hold up the exit.
    const res = await fetch(server.url('/api/demo/emails/ping'));
    expect(res.status).toBe(200);
    await res.text();

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const exit = await server.waitExit(15_000);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(2000);
  });

  it('should shut down the same way on SIGINT', async () => {
    const server = await startServer({ DATABASE_URL: sqliteUrl(), DEMO_DATA: 'false' });
    await server.waitReady();
    server.child.kill('SIGINT');
    const exit = await server.waitExit(15_000);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(server.jsonLines().some((e) => e.msg === 'SIGINT: finishing in-flight requests')).toBe(
      true,
    );
  });

  it('should give up and exit 1 after SHUTDOWN_TIMEOUT=1 when a request never finishes', async () => {
    const server = await startServer({
      DATABASE_URL: sqliteUrl(),
      DEMO_DATA: 'false',
      SHUTDOWN_TIMEOUT: '1',
    });
    await server.waitReady();
    const { req, answer } = chunkedPost(server, '/api/demo/phone_numbers');
    answer.catch(() => undefined);
    req.write('{"number": "never finished",');
    await sleep(300);

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const exit = await server.waitExit(10_000);
    const took = Date.now() - signalled;
    expect(exit).toMatchObject({ code: 1, signal: null });
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(3000);
    expect(
      server.jsonLines().some((e) => e.msg === 'still busy after 1 s; exiting' && e.level === 50),
    ).toBe(true);
    req.destroy();
  });
});
