/**
 * The feed's tests' helpers: a Server-Sent Events client (the events and comments of one
 * stream), an app listening on a port of its own, and the feed's head once it has settled.
 */
import { request as httpRequest, IncomingMessage, Server, ClientRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { EventsRuntime } from '../../sources';
import type { TestApp } from '../support/harness';

/** The app's server, listening on a free port of 127.0.0.1 (streams need a real socket). */
export async function listening(t: TestApp): Promise<Server> {
  const server = t.app.getHttpServer() as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/**
 * The feed's head once every committed event has its position: the cursor to read what comes
 * next from. Batches run here until none is left waiting (another instance's included).
 */
export async function feedHead(t: TestApp): Promise<number> {
  const { sequencer, store } = t.app.get(EventsRuntime);
  while ((await store.unpositioned()) !== undefined) await sequencer.sequence();
  return (await store.bounds()).head;
}

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
  async until(check: (s: SseStream) => boolean, ms = 20_000): Promise<void> {
    if (!(await this.within(check, ms))) {
      throw new Error(`stream: condition not met; ${this.events.length} events`);
    }
  }

  /** Whether `check` comes to hold (checked on each chunk) within `ms`: false once they pass. */
  within(check: (s: SseStream) => boolean, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        resolve(false);
      }, ms);
      const look = () => {
        if (settled) return;
        if (check(this)) {
          settled = true;
          clearTimeout(timer);
          resolve(true);
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
