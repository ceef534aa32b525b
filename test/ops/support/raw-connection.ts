/**
 * HTTP/1.1 written by hand on a socket, for the ops tests of what a server does with a
 * connection as such (the drain, slow clients): a request may be sent in parts, or never finished.
 */
import { connect, Socket } from 'node:net';
import { waitFor } from './process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One HTTP/1.1 connection written by hand (a request may be sent in parts); Content-Length bodies. */
export class RawConnection {
  readonly socket: Socket;
  readonly connected: Promise<void>;
  /** The server has closed the connection. */
  closed = false;
  private data = '';

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => (this.data += chunk));
    this.socket.on('close', () => (this.closed = true));
    this.socket.on('error', () => undefined);
    this.connected = new Promise((resolve) => this.socket.once('connect', () => resolve()));
  }

  send(text: string): void {
    this.socket.write(text);
  }

  /** What has arrived and not been taken as a response yet. */
  get pending(): string {
    return this.data;
  }

  /** The next whole response. */
  async response(timeoutMs = 10_000): Promise<RawResponse> {
    let response: RawResponse | undefined;
    await waitFor(
      () => (response = this.take()) !== undefined || this.closed,
      'a response',
      timeoutMs,
    );
    response ??= this.take();
    if (!response) throw new Error(`connection closed; received ${JSON.stringify(this.data)}`);
    return response;
  }

  private take(): RawResponse | undefined {
    const end = this.data.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const [statusLine, ...lines] = this.data.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.data.length < end + 4 + length) return undefined;
    const body = this.data.slice(end + 4, end + 4 + length);
    this.data = this.data.slice(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }
}

/** Sends `parts` one a second on `connection` until it is closed or `limitMs` has passed. */
export async function trickle(connection: RawConnection, parts: () => string, limitMs: number) {
  const started = Date.now();
  while (!connection.closed && Date.now() - started < limitMs) {
    connection.send(parts());
    await sleep(1000);
  }
}

/**
 * Two requests that never finish: on one connection a header of GET /health/live trickled a line
 * a second, on another a POST body announced as `bodyLength` bytes, `bodyStart` sent, then
 * `bodyPart` a second. `trickle(limitMs)` sends until the server closes both or `limitMs` passes.
 */
export async function unfinishedRequests(port: number, bodyLength: number, bodyStart: string) {
  const headers = new RawConnection(port);
  const body = new RawConnection(port);
  await Promise.all([headers.connected, body.connected]);
  const started = Date.now();
  headers.send('GET /health/live HTTP/1.1\r\nHost: localhost\r\n');
  body.send(
    'POST /api/demo/emails HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${bodyLength}\r\n\r\n${bodyStart}`,
  );
  let n = 0;
  const trickleBoth = (limitMs: number, bodyPart: string) =>
    Promise.all([
      trickle(headers, () => `X-Slow-${n++}: yes\r\n`, limitMs),
      trickle(body, () => bodyPart, limitMs),
    ]);
  return { headers, body, started, trickle: trickleBoth };
}
