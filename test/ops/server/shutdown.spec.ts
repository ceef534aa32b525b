/**
 * Graceful shutdown of the compiled server: on SIGTERM it stops accepting connections, lets the
 * requests in flight finish, and exits 0; after SHUTDOWN_TIMEOUT seconds it gives up and exits 1.
 * During the drain readiness is 503 and every response says `Connection: close`; keep-alive
 * clients sending back-to-back lose no request the server accepted, with one process or a cluster.
 *
 * Each step waits for what it needs (the server has the request, the signal is logged, the port
 * refuses) rather than for a fixed time; only the check that the server keeps waiting for a
 * request in flight has to let a little time pass.
 */
import { Agent, ClientRequest, IncomingMessage, request } from 'node:http';
import { connect } from 'node:net';
import { ServerProcess, sqliteUrl, startServer, waitFor } from '../support/process';
import { RawConnection } from '../support/raw-connection';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SIGTERM_LOGGED = 'SIGTERM: finishing in-flight requests';

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A POST whose chunked body is sent in parts, under the test's control. `received` settles once
 * the server has the request in hand: it asks for `Expect: 100-continue`, which the server grants
 * as it starts handling the request.
 */
function chunkedPost(
  server: ServerProcess,
  path: string,
): { req: ClientRequest; answer: Promise<Answer>; received: Promise<void> } {
  const req = request({
    host: '127.0.0.1',
    port: server.port,
    path,
    method: 'POST',
    agent: false,
    headers: {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
      Expect: '100-continue',
    },
  });
  const received = new Promise<void>((resolve) => req.once('continue', () => resolve()));
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  return { req, answer, received };
}

/** Starts a server on a new SQLite file and waits until it is ready. */
async function readyServer(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServer({ DATABASE_URL: sqliteUrl(), ...env });
  await server.waitReady();
  return server;
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
    const server = await readyServer({ SHUTDOWN_TIMEOUT: '5' });

    const { req, answer, received } = chunkedPost(server, '/api/demo/phone_numbers');
    req.write('{"number": "+1 555 0100 ops-shutdown",');
    await received;

    server.child.kill('SIGTERM');
    await server.waitForLog((e) => e.msg === SIGTERM_LOGGED, 60_000);
    // The listener closes right after the log line.
    let attempt = await tryConnect(server.port);
    const refused = async () =>
      attempt === 'refused' || (attempt = await tryConnect(server.port)) === 'refused';
    await waitFor(refused, 'the port to refuse connections').catch(() => undefined);
    expect(attempt).toBe('refused');
    // Nothing may happen for a while: the server keeps waiting for the request in flight.
    await sleep(300);
    expect(server.exit).toBeUndefined();
    expect(await tryConnect(server.port)).toBe('refused');

    req.end(' "user_id": 1}');
    const { status, body } = await answer;
    expect(status).toBe(201);
    expect(JSON.parse(body)).toEqual({
      id: expect.any(Number),
      number: '+1 555 0100 ops-shutdown',
      user: { id: 1, login: expect.any(String) },
    });

    // Exit code 0 is "in time": past SHUTDOWN_TIMEOUT the server gives up with 1. No wall-clock
    // bound of our own, which a loaded machine could miss.
    const exit = await server.waitExit(60_000);
    expect(exit).toMatchObject({ code: 0, signal: null });
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
    const { req, answer, received } = chunkedPost(first, '/api/demo/phone_numbers');
    req.write('{"number": "ops-saved-on-shutdown",');
    await received;
    first.child.kill('SIGTERM');
    await first.waitForLog((e) => e.msg === SIGTERM_LOGGED, 60_000);
    req.end('"user_id": 2}');
    expect((await answer).status).toBe(201);
    expect((await first.waitExit(60_000)).code).toBe(0);

    const second = await startServer({ DATABASE_URL: database });
    await second.waitReady();
    const res = await fetch(second.url('/api/demo/phone_numbers?number=ops-saved-on-shutdown'));
    const page = (await res.json()) as { results: { number: string }[] };
    expect(page.results.map((r) => r.number)).toEqual(['ops-saved-on-shutdown']);
    second.child.kill('SIGTERM');
    expect((await second.waitExit(60_000)).code).toBe(0);
  });

  it('should exit 0 on SIGTERM when idle, without waiting for an idle keep-alive connection', async () => {
    const server = await readyServer({ DEMO_DATA: 'false', SHUTDOWN_TIMEOUT: '10' });
    // fetch keeps its connection alive for reuse: an idle socket that must not hold up the exit.
    const res = await fetch(server.url('/api/demo/emails/ping'));
    expect(res.status).toBe(200);
    await res.text();

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const exit = await server.waitExit(60_000);
    expect(exit).toMatchObject({ code: 0, signal: null });
    // Held by the connection, it would have waited the whole SHUTDOWN_TIMEOUT and exited 1; the
    // bound is that timeout, not a guess at how fast a loaded machine is.
    expect(Date.now() - signalled).toBeLessThan(10_000);
  });

  it('should shut down the same way on SIGINT', async () => {
    const server = await readyServer({ DEMO_DATA: 'false' });
    server.child.kill('SIGINT');
    const exit = await server.waitExit(60_000);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(server.jsonLines().some((e) => e.msg === 'SIGINT: finishing in-flight requests')).toBe(
      true,
    );
  });

  it('should give up and exit 1 after SHUTDOWN_TIMEOUT=1 when a request never finishes', async () => {
    const server = await readyServer({ DEMO_DATA: 'false', SHUTDOWN_TIMEOUT: '1' });
    const { req, answer, received } = chunkedPost(server, '/api/demo/phone_numbers');
    answer.catch(() => undefined);
    req.write('{"number": "never finished",');
    await received;

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const exit = await server.waitExit(60_000);
    const took = Date.now() - signalled;
    expect(exit).toMatchObject({ code: 1, signal: null });
    // Not before the timeout; after it, within what any machine manages (the request itself
    // never ends, so without the timeout there would be no exit at all).
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(30_000);
    expect(
      server.jsonLines().some((e) => e.msg === 'still busy after 1 s; exiting' && e.level === 50),
    ).toBe(true);
    req.destroy();
  });
});

describe('the drain', () => {
  it('should answer readiness 503 with Connection: close, close idle keep-alive connections and finish the request in flight with Connection: close', async () => {
    const server = await readyServer({ SHUTDOWN_TIMEOUT: '10' });
    const idle = new RawConnection(server.port);
    const probe = new RawConnection(server.port);
    await Promise.all([idle.connected, probe.connected]);
    idle.send('GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect((await idle.response()).headers.connection).toBe('keep-alive');
    probe.send('GET /health/ready HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const before = await probe.response();
    expect([before.status, before.headers.connection]).toEqual([200, 'keep-alive']);

    // The next probe on the same connection is under way (its first line sent) at the signal.
    probe.send('GET /health/ready HTTP/1.1\r\n');
    const { req, answer, received } = chunkedPost(server, '/api/demo/phone_numbers');
    req.write('{"number": "+1 555 0101 drain",');
    await received;

    server.child.kill('SIGTERM');
    await server.waitForLog((e) => e.msg === SIGTERM_LOGGED);
    await waitFor(() => idle.closed, 'the idle keep-alive connection to be closed', 5000);
    expect(idle.pending).toBe('');

    probe.send('Host: localhost\r\nAccept: application/json\r\n\r\n');
    const during = await probe.response();
    expect(during.status).toBe(503);
    expect(during.headers.connection).toBe('close');
    expect(JSON.parse(during.body)).toEqual({ message: 'The service is shutting down.' });
    await waitFor(() => probe.closed, 'the server to close the probe connection', 5000);

    req.end(' "user_id": 1}');
    const posted = await answer;
    expect(posted.status).toBe(201);
    expect(posted.headers.connection).toBe('close');
    expect((await server.waitExit(15_000)).code).toBe(0);
    // Errors logged: the readiness 503 only.
    expect(server.jsonLines().filter((e) => e.level >= 50 && e.res?.status !== 503)).toEqual([]);
  });

  interface Outcome {
    id: string;
    kind: 'answered' | 'refused' | 'failed';
    status?: number;
    connection?: string;
    error?: string;
  }

  /** One GET on `agent`: answered in full (a JSON body), refused at connect, or failed. */
  function get(server: ServerProcess, agent: Agent, id: string): Promise<Outcome> {
    return new Promise((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/api/demo/marbles?page_size=3',
          agent,
          headers: { 'X-Request-Id': id },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('error', (error) => resolve({ id, kind: 'failed', error: String(error) }));
          res.on('end', () => {
            try {
              expect(JSON.parse(body).results).toHaveLength(3);
            } catch (error) {
              resolve({ id, kind: 'failed', error: `incomplete body: ${String(error)}` });
              return;
            }
            const connection = res.headers.connection;
            resolve({ id, kind: 'answered', status: res.statusCode, connection });
          });
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) =>
        resolve({
          id,
          kind: error.code === 'ECONNREFUSED' ? 'refused' : 'failed',
          error: `${error.code}: ${error.message}`,
        }),
      );
      req.end();
    });
  }

  it.each([['1'], ['2']])(
    'should lose no accepted request of keep-alive clients sending back-to-back through the drain (WEB_CONCURRENCY=%s)',
    async (workers) => {
      const server = await startServer({
        DATABASE_URL: sqliteUrl(),
        SHUTDOWN_TIMEOUT: '20',
        WEB_CONCURRENCY: workers,
      });
      await server.waitReady();
      if (workers === '2') {
        await waitFor(
          () => server.jsonLines().filter((e) => e.context === 'Bootstrap').length === 2,
          'both workers to listen',
          60_000,
        );
      }
      const outcomes: Outcome[] = [];
      const names = ['a', 'b', 'c', 'd'];
      const pendingSince = new Map<string, number>();
      let stopped = false;
      const clients = names.map(async (name) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        for (let n = 0; !stopped; n++) {
          pendingSince.set(name, Date.now());
          const outcome = await get(server, agent, `load-${name}-${n}`);
          pendingSince.delete(name);
          outcomes.push(outcome);
          if (outcome.kind === 'refused') await sleep(20);
        }
        agent.destroy();
      });
      // Each client is refused at connect by now, or waits on a connection that the cluster's
      // primary took in as its last worker closed, and holds unserved until it exits (a Node
      // cluster race): releasing the request below lets the process end, which resets it.
      const drainedAll = () =>
        names.every(
          (name) =>
            outcomes.some((o) => o.kind === 'refused' && o.id.startsWith(`load-${name}-`)) ||
            Date.now() - (pendingSince.get(name) ?? Infinity) > 2000,
        );

      await waitFor(() => outcomes.length >= 40, 'load before the signal', 30_000);
      // Held open through the drain: the clients keep sending until every one is refused.
      const { req, answer, received } = chunkedPost(server, '/api/demo/phone_numbers');
      req.write('{"number": "+1 555 0102 drain under load",');
      await received;
      server.child.kill('SIGTERM');
      await waitFor(
        () => server.jsonLines().filter((e) => e.msg === SIGTERM_LOGGED).length === Number(workers),
        'every worker to log the signal',
      );
      await waitFor(drainedAll, 'every client to be refused at connect', 30_000);
      stopped = true;
      req.end(' "user_id": 1}');
      const posted = await answer;
      expect([posted.status, posted.headers.connection]).toEqual([201, 'close']);
      expect((await server.waitExit(30_000)).code).toBe(0);
      await Promise.all(clients);

      // Every request the server accepted was answered in full; a failure is only ever a
      // request the server never read (sent on an idle connection as it was being closed).
      const logged = new Map<string, number>();
      for (const e of server.jsonLines())
        if (e.req?.id.startsWith('load-')) logged.set(e.req.id, e.res!.status);
      const answered = outcomes.filter((o) => o.kind === 'answered');
      const failed = outcomes.filter((o) => o.kind === 'failed');
      expect(answered.length).toBeGreaterThanOrEqual(40);
      expect(new Set(answered.map((o) => o.status))).toEqual(new Set([200]));
      expect(new Map(answered.map((o) => [o.id, o.status]))).toEqual(logged);
      expect(failed.filter((o) => logged.has(o.id))).toEqual([]);
      for (const o of failed) expect(o.error).toMatch(/^(ECONNRESET|EPIPE):/);
      expect(server.jsonLines().filter((e) => e.level >= 50)).toEqual([]);
    },
  );
});
