/**
 * A webhook endpoint of the suites' own: an HTTP server on loopback that keeps every request it
 * receives, checks each signature by itself (Node's crypto, the Standard Webhooks recipe, not
 * the service's code), and answers as the test says (a status, a delay, a redirect).
 */
import { createHmac } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface Delivery {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The event, parsed. */
  event: {
    id: string;
    collection: string;
    action: string;
    record_id: number;
    [k: string]: unknown;
  };
  /** The secrets (of those given) one of whose signatures is in `webhook-signature`. */
  signedWith: string[];
  at: number;
}

/** What to answer a delivery: a status, after a delay, with headers. */
export interface Answer {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
}

/** The signature of a message with a secret, as a receiver computes it. */
export function expectedSignature(secret: string, id: string, timestamp: string, body: string) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

export class Receiver {
  readonly deliveries: Delivery[] = [];
  /** Secrets the signatures are checked against (a subscription's, once it is known). */
  secrets: string[] = [];
  /** The answer to each delivery; 204 by default. */
  answer: (delivery: Delivery) => Answer = () => ({ status: 204 });
  private server!: Server;
  private readonly waiters = new Set<() => void>();
  /** Answers put off by a delay, cleared when the receiver stops. */
  private readonly delayed = new Set<NodeJS.Timeout>();

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    receiver.server = createServer((req, res) => receiver.handle(req, res));
    receiver.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, String(v)]),
      );
      const given = (headers['webhook-signature'] ?? '').split(' ').map((s) => s.slice(3));
      const signedWith = this.secrets.filter((secret) =>
        given.includes(
          expectedSignature(secret, headers['webhook-id'], headers['webhook-timestamp'], body),
        ),
      );
      const delivery: Delivery = {
        path: req.url ?? '',
        headers,
        body,
        event: JSON.parse(body) as Delivery['event'],
        signedWith,
        at: Date.now(),
      };
      this.deliveries.push(delivery);
      const answer = this.answer(delivery);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers);
        res.end();
      };
      if (answer.delayMs) {
        const timer = setTimeout(() => {
          this.delayed.delete(timer);
          send();
        }, answer.delayMs);
        this.delayed.add(timer);
      } else send();
      for (const wake of [...this.waiters]) wake();
    });
  }

  /** Resolves once `done()` holds (checked at each delivery), or fails after `ms`. */
  async until(done: () => boolean, what: string, ms = 15_000): Promise<void> {
    if (done()) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`waited ${ms} ms for ${what}; got ${this.deliveries.length} deliveries`));
      }, ms);
      this.waiters.add(check);
    });
  }

  /** The deliveries of one subscription path, in the order they came. */
  to(path: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === path);
  }

  async stop(): Promise<void> {
    for (const timer of this.delayed) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Resolves once `check()` resolves true, looking every 20 ms, or fails after `ms`. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  what: string,
  ms = 15_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
