/**
 * Logs of the compiled server: JSON lines on stdout, one access line per request carrying the
 * request id that the response echoes, and LOG_LEVEL filtering.
 */
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { LogEntry, ServerProcess, sqliteUrl, startServer } from '../support/process';

const accessLine = (path: string, status?: number) => (e: LogEntry) =>
  e.req?.path === path && e.res !== undefined && (status === undefined || e.res.status === status);

async function stop(server: ServerProcess) {
  server.child.kill('SIGTERM');
  expect((await server.waitExit()).code).toBe(0);
}

describe('logs with default settings', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    // Nothing but the port and the database: LOG_LEVEL, LOG_FORMAT, NODE_ENV and DEMO_DATA as shipped.
    server = await startServer({ DATABASE_URL: sqliteUrl() });
    await server.waitReady();
  });
  afterAll(() => server.child.kill('SIGKILL'));

  it('should write one access line per request with method, path, status, duration and the echoed request id', async () => {
    const res = await fetch(server.url('/api/demo/emails/ping?x=1'));
    expect(res.status).toBe(200);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const line = await server.waitForLog((e) => e.req?.id === id);
    expect(line.req).toEqual({ id, method: 'GET', path: '/api/demo/emails/ping' });
    expect(line.res).toEqual({ status: 200 });
    expect(typeof line.duration_ms).toBe('number');
    expect(line.duration_ms).toBeGreaterThanOrEqual(0);
    expect(line.duration_ms).toBeLessThan(10_000);
    expect(line.level).toBe(30);
    expect(typeof line.time).toBe('number');
    expect(line.msg).toBe('GET /api/demo/emails/ping 200');
    // Exactly one line for that request.
    await server.logsSettled();
    expect(server.jsonLines().filter((e) => e.req?.id === id)).toHaveLength(1);
  });

  it('should log the request id the client sent, and the path with its format suffix', async () => {
    const res = await fetch(server.url('/api/demo/marbles/1.xml'), {
      headers: { 'X-Request-Id': 'ops-log-1' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('ops-log-1');
    const line = await server.waitForLog((e) => e.req?.id === 'ops-log-1');
    expect(line.req).toEqual({ id: 'ops-log-1', method: 'GET', path: '/api/demo/marbles/1.xml' });
    expect(line.res).toEqual({ status: 200 });
  });

  it('should log a 404 at warn level', async () => {
    const res = await fetch(server.url('/api/demo/marbles/99999'), {
      headers: { 'X-Request-Id': 'ops-log-404' },
    });
    expect(res.status).toBe(404);
    const line = await server.waitForLog((e) => e.req?.id === 'ops-log-404');
    expect(line.res).toEqual({ status: 404 });
    expect(line.level).toBe(40);
  });

  it('should not log request headers, bodies or the Authorization header', async () => {
    const res = await fetch(server.url('/api/demo/phone_numbers'), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: 'Bearer secret-token-in-header',
        'X-Request-Id': 'ops-log-post',
      },
      body: JSON.stringify({ number: 'ops-log-number-123', user_id: 1 }),
    });
    expect(res.status).toBe(201);
    await server.waitForLog((e) => e.req?.id === 'ops-log-post');
    const all = server.stdout.join('\n');
    expect(all).not.toContain('secret-token-in-header');
    expect(all).not.toContain('ops-log-number-123');
  });

  /** An event stream of the change feed, open: its answer has come, nothing of it is read after. */
  async function openStream(path: string, id: string) {
    const req = http.get(server.url(path), {
      headers: { Accept: 'text/event-stream', 'X-Request-Id': id },
    });
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    res.pause();
    return req;
  }

  it('should log an event stream its consumer closed at info, not as an error', async () => {
    const stream = await openStream('/api/events', 'ops-log-stream');
    stream.destroy();
    const line = await server.waitForLog((e) => e.req?.id === 'ops-log-stream');
    expect(line.req).toEqual({ id: 'ops-log-stream', method: 'GET', path: '/api/events' });
    expect(line.res).toEqual({ status: 200 });
    expect(line.level).toBe(30);
    expect(line.msg).toBe('GET /api/events 200, stream closed by the client');
  });

  it('should log a request cut off before its answer as an error, "aborted"', async () => {
    // The body is promised whole, begun once the server has taken the headers, then cut off.
    const req = http.request(server.url('/api/demo/marbles'), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': '100',
        Expect: '100-continue',
        'X-Request-Id': 'ops-log-cut',
      },
    });
    req.on('error', () => undefined);
    req.flushHeaders();
    await once(req, 'continue');
    req.write('{"name":', () => req.destroy());
    const line = await server.waitForLog((e) => e.req?.id === 'ops-log-cut');
    expect(line.req).toEqual({ id: 'ops-log-cut', method: 'POST', path: '/api/demo/marbles' });
    expect(line.level).toBe(50);
    expect(line.msg).toBe('POST /api/demo/marbles aborted');
  });

  it('should log a request whose client stopped writing mid-body as an error, "aborted"', async () => {
    // The client half-closes its side mid-body and reads on. Node's HTTP parser sees the body
    // end short of its Content-Length and answers the bare 400 itself; the service's line says
    // what the request was: cut off.
    const socket = net.connect(Number(new URL(server.url('/')).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.end(
      'POST /api/demo/marbles HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Content-Length: 100\r\nX-Request-Id: ops-log-half\r\n\r\n{"name":',
    );
    let answer = '';
    socket.setEncoding('utf8').on('data', (text: string) => (answer += text));
    await once(socket, 'close');
    expect(answer).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    const line = await server.waitForLog((e) => e.req?.id === 'ops-log-half');
    expect(line.level).toBe(50);
    expect(line.msg).toBe('POST /api/demo/marbles aborted');
  });

  it('should log a stream it closed because its consumer did not read, at warn', async () => {
    const id = 'ops-log-slow';
    const stream = await openStream('/api/demo/marbles/events', id);
    stream.on('error', () => undefined);
    try {
      // Big events, until what waits for the consumer passes the bound (1 MiB past the
      // socket's buffers) and the service closes the stream.
      const description = 'x'.repeat(10_000);
      const closed = () => server.stdout.some((line) => line.includes(`"id":"${id}"`));
      for (let round = 0; !closed(); round++) {
        if (round === 200) throw new Error('the stream was still open after 200 bulk creates');
        const marbles = Array.from({ length: 90 }, (_, i) => ({
          name: `Slow ${round}-${i}`,
          description,
        }));
        const res = await fetch(server.url('/api/demo/marbles'), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(marbles),
        });
        expect(res.status).toBe(201);
        await res.arrayBuffer();
      }
      const line = await server.waitForLog((e) => e.req?.id === id);
      expect(line.req).toEqual({ id, method: 'GET', path: '/api/demo/marbles/events' });
      expect(line.res).toEqual({ status: 200 });
      expect(line.level).toBe(40);
      expect(line.msg).toBe(
        'GET /api/demo/marbles/events 200, stream closed: the consumer did not read',
      );
    } finally {
      stream.destroy();
    }
  }, 120_000);

  it('should write nothing but JSON lines on stdout and nothing on stderr, through to shutdown', async () => {
    await stop(server);
    expect(server.stdout.length).toBeGreaterThan(3);
    const lines = server.jsonLines();
    for (const line of lines) {
      expect(typeof line.level).toBe('number');
      expect(typeof line.time).toBe('number');
      expect(typeof line.msg).toBe('string');
    }
    expect(
      lines.some((e) =>
        /^Listening on http:\/\/localhost:\d+ \(API: .*; database: sqlite:/.test(e.msg),
      ),
    ).toBe(true);
    expect(lines.some((e) => e.msg === 'Empty database: demo data loaded.')).toBe(true);
    expect(lines.some((e) => e.msg === 'SIGTERM: finishing in-flight requests')).toBe(true);
    expect(server.stderr).toEqual([]);
  });
});

describe('logs with LOG_LEVEL=warn', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({
      DATABASE_URL: sqliteUrl(),
      LOG_LEVEL: 'warn',
      DEMO_DATA: 'false',
    });
    await server.waitReady('/health/live');
  });
  afterAll(() => server.child.kill('SIGKILL'));

  it('should suppress 200 access lines and keep a 404 line', async () => {
    const ok = await fetch(server.url('/api/demo/emails/ping'), {
      headers: { 'X-Request-Id': 'warn-200' },
    });
    expect(ok.status).toBe(200);
    const missing = await fetch(server.url('/api/demo/nowhere'), {
      headers: { 'X-Request-Id': 'warn-404' },
    });
    expect(missing.status).toBe(404);

    const line = await server.waitForLog((e) => e.req?.id === 'warn-404');
    expect(line.req).toEqual({ id: 'warn-404', method: 'GET', path: '/api/demo/nowhere' });
    expect(line.res).toEqual({ status: 404 });
    expect(line.level).toBe(40);
    // The 200 finished before the 404 was sent; once later lines are written, its line would be too.
    await server.logsSettled();
    const lines = server.jsonLines();
    expect(lines.filter((e) => e.req?.id === 'warn-200')).toEqual([]);
    expect(lines.filter(accessLine('/api/demo/emails/ping'))).toEqual([]);
    expect(lines.filter((e) => e.level < 40)).toEqual([]);
  });

  it('should stop cleanly', async () => {
    await stop(server);
    expect(server.jsonLines().filter((e) => e.level < 40)).toEqual([]);
  });
});

describe('logs with LOG_FORMAT=pretty', () => {
  it('should write human-readable lines, not JSON', async () => {
    const server = await startServer({
      DATABASE_URL: sqliteUrl(),
      LOG_FORMAT: 'pretty',
      DEMO_DATA: 'false',
    });
    await server.waitReady('/health/live');
    const res = await fetch(server.url('/api/demo/emails/ping'), {
      headers: { 'X-Request-Id': 'pretty-1' },
    });
    expect(res.status).toBe(200);
    const line = await server.waitForLine((l) => l.includes('pretty-1'));
    expect(line).toBeDefined();
    expect(line).toContain('GET /api/demo/emails/ping 200');
    expect(() => JSON.parse(line!)).toThrow();
    await stop(server);
  });
});
