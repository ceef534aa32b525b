/** A Server-Sent Events client for the feed's tests: the events and comments of one stream. */
import { request as httpRequest, IncomingMessage, Server, ClientRequest } from 'node:http';
import { AddressInfo } from 'node:net';

export interface SseEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

export class SseStream {
  readonly events: SseEvent[] = [];
  comments = 0;
  /** The comment lines, as sent (`: events`, `: heartbeat`). */
  readonly notes: string[] = [];
  ended = false;
  status = 0;
  headers: IncomingMessage['headers'] = {};
  private waiters: (() => void)[] = [];
  private buffer = '';
  private held?: IncomingMessage;

  constructor(private readonly req: ClientRequest) {}

  /** Called by `openStream` for a client that does not read: the response stays unread. */
  hold(res: IncomingMessage): void {
    this.status = res.statusCode ?? 0;
    this.headers = res.headers;
    this.held = res;
  }

  /** Called by `openStream` with the response. */
  attach(res: IncomingMessage): void {
    this.status = res.statusCode ?? 0;
    this.headers = res.headers;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.buffer += chunk;
      let at: number;
      while ((at = this.buffer.indexOf('\n\n')) !== -1) {
        const block = this.buffer.slice(0, at);
        this.buffer = this.buffer.slice(at + 2);
        this.parse(block);
      }
      this.notify();
    });
    const end = () => {
      this.ended = true;
      this.notify();
    };
    res.on('end', end);
    res.on('close', end);
    res.on('error', end);
  }

  private parse(block: string): void {
    if (block.startsWith(':')) {
      this.comments++;
      this.notes.push(block);
      return;
    }
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      const colon = line.indexOf(': ');
      fields[line.slice(0, colon)] = line.slice(colon + 2);
    }
    this.events.push({
      id: fields.id,
      event: fields.event,
      data: JSON.parse(fields.data) as Record<string, unknown>,
    });
  }

  private notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Resolves once `check` holds (checked on each chunk), or fails after `ms`. */
  until(check: (s: SseStream) => boolean, ms = 20_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`stream: condition not met; ${this.events.length} events`)),
        ms,
      );
      const look = () => {
        if (check(this)) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(look);
      };
      look();
    });
  }

  close(): void {
    this.req.destroy();
  }
}

/**
 * Opens `path` on `server` (listening, or its port) with Accept: text/event-stream and `headers`.
 * `reading: false`: the client reads nothing (the socket stops being read once the response's
 * own buffer is full, and the kernel's buffers fill up behind it).
 */
export function openStream(
  server: Server | number,
  path: string,
  headers: Record<string, string> = {},
  { reading = true } = {},
): Promise<SseStream> {
  const port = typeof server === 'number' ? server : (server.address() as AddressInfo).port;
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      headers: { Accept: 'text/event-stream', ...headers },
    });
    const stream = new SseStream(req);
    req.on('response', (res) => {
      if (reading) stream.attach(res);
      else stream.hold(res);
      resolve(stream);
    });
    req.on('error', reject);
    req.end();
  });
}
