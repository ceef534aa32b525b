/**
 * Clients that pipeline requests and never read the answers: each of 50 connections writes 200
 * requests for the OpenAPI document at once and reads nothing. The server runs a connection's next
 * request only while less than a mebibyte of its answers waits to be sent, so its memory stays
 * bounded and other clients are still answered; a connection that stays over the bound is closed.
 */
import { readFileSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { ServerProcess, sqliteUrl, startServer, waitFor } from '../support/process';

const CLIENTS = 50;
const PIPELINED = 200;
const MiB = 1024 * 1024;

/** The resident memory of a process, in bytes (Linux). */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
  return Number(line![1]) * 1024;
}

describe('backpressure: clients that pipeline and never read', () => {
  let server: ServerProcess;
  const sockets: Socket[] = [];
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    server = await startServer({ DATABASE_URL: sqliteUrl() });
    await server.waitReady();
  });

  afterAll(() => {
    console.log(`backpressure figures: ${JSON.stringify(figures)}`);
    for (const socket of sockets) socket.destroy();
  });

  it('should keep memory bounded, answer others, and close the connections that never read', async () => {
    const pid = server.child.pid!;
    const document = await fetch(server.url('/api/openapi.json'));
    const size = (await document.arrayBuffer()).byteLength;
    const before = rss(pid);
    const request = `GET /api/openapi.json HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`;
    await Promise.all(
      Array.from(
        { length: CLIENTS },
        () =>
          new Promise<void>((resolve, reject) => {
            const socket = connect(server.port, '127.0.0.1', () => {
              socket.pause(); // reads nothing
              socket.write(request.repeat(PIPELINED), () => resolve());
            });
            socket.on('error', reject);
            sockets.push(socket);
          }),
      ),
    );
    // Another client is answered while those connections are open and full.
    const ping = await fetch(server.url('/api/demo/marbles/1'), {
      signal: AbortSignal.timeout(10_000),
    });
    expect(ping.status).toBe(200);
    // The peak over the next three seconds, while the server does what it will with the flood.
    let peak = rss(pid);
    const end = Date.now() + 3000;
    while (Date.now() < end) {
      peak = Math.max(peak, rss(pid));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    figures.documentBytes = size;
    figures.rssBeforeMiB = Math.round(before / MiB);
    figures.rssPeakMiB = Math.round(peak / MiB);
    figures.unboundedWouldBeMiB = Math.round((CLIENTS * PIPELINED * size) / MiB);
    expect(peak - before).toBeLessThan(150 * MiB);
    const again = await fetch(server.url('/api/demo/marbles/1'), {
      signal: AbortSignal.timeout(10_000),
    });
    expect(again.status).toBe(200);

    // Over the bound for 20 s with nothing read: every one of them is closed by the server.
    await waitFor(
      () =>
        server
          .jsonLines()
          .filter((e) => e.context === 'Backpressure' && /connection closed/.test(e.msg)).length >=
        CLIENTS,
      'the non-reading connections closed',
      60_000,
      200,
    );
  }, 120_000);
});
