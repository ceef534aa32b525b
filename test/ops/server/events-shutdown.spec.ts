/**
 * The change feed's streams at SIGTERM, on the compiled server: every open stream ends cleanly
 * (the chunked response is terminated, not cut), after the events written before the signal,
 * and the server exits 0 well within SHUTDOWN_TIMEOUT (past it, it would give up with 1: an open
 * stream left to run would hold it there). The client then resumes elsewhere with its last id.
 */
import { IncomingMessage, request } from 'node:http';
import { ServerProcess, cleanup, sqliteUrl, startServer } from '../support/process';

/** A Server-Sent Events stream read to its end: its event ids and how it ended. */
interface OpenStream {
  ids: string[];
  /** The response's headers. */
  headers: IncomingMessage['headers'];
  /** Resolves once the response ends: `complete` when the server terminated it properly. */
  ended: Promise<{ complete: boolean }>;
  /** Resolves once `count` events have come. */
  events(count: number): Promise<void>;
}

function openStream(server: ServerProcess, path: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: server.port,
      path,
      agent: false,
      headers: { Accept: 'text/event-stream' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const ids: string[] = [];
      const waiters: (() => void)[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (const [, id] of buffer.matchAll(/^id: (\d+)$/gm)) ids.push(id);
        buffer = buffer.slice(buffer.lastIndexOf('\n\n') + 2);
        for (const wake of waiters.splice(0)) wake();
      });
      const ended = new Promise<{ complete: boolean }>((done) => {
        res.on('end', () => done({ complete: res.complete }));
        res.on('error', () => done({ complete: false }));
      });
      resolve({
        ids,
        headers: res.headers,
        ended,
        events: (count) =>
          new Promise<void>((done) => {
            const look = () => (ids.length >= count ? done() : waiters.push(look));
            look();
          }),
      });
    });
    req.end();
  });
}

describe('change feed at shutdown', () => {
  afterAll(() => cleanup());

  it('should end every open stream cleanly on SIGTERM, after the events written before it, and exit 0', async () => {
    const server = await startServer({ DATABASE_URL: sqliteUrl(), SHUTDOWN_TIMEOUT: '60' });
    await server.waitReady();
    const all = await openStream(server, '/api/events');
    const marbles = await openStream(server, '/api/demo/marbles/events');
    expect(all.headers['content-type']).toBe('text/event-stream; charset=utf-8');

    const created = await fetch(server.url('/api/demo/marbles'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Shutdown opal' }),
    });
    expect(created.status).toBe(201);
    await Promise.all([all.events(1), marbles.events(1)]);

    server.child.kill('SIGTERM');
    expect(await all.ended).toEqual({ complete: true });
    expect(await marbles.ended).toEqual({ complete: true });
    expect(all.ids).toEqual(marbles.ids);
    expect(all.ids).toHaveLength(1);
    // 0 is "in time": with a stream left open the server would wait 60 s and give up with 1.
    const exit = await server.waitExit(90_000);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(server.jsonLines().filter((e) => e.level >= 50)).toEqual([]);
  });
});
