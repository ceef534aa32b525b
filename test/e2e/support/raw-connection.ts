/**
 * A raw TCP connection for the tests that must see every byte the server sends, and when: the
 * bodies refused while they arrive, and the answers held back.
 */
import type { Server } from 'node:http';
import { AddressInfo, Socket, connect } from 'node:net';

/** Makes `server` (an app's HTTP server) listen on a free port of 127.0.0.1; its port. */
export async function listenOnAnyPort(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A connection whose bytes received are kept as text, with a wait for a condition on them. */
export class Connection {
  text = '';
  closed = false;
  private readonly socket: Socket;
  private waiters: (() => void)[] = [];

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.text += chunk.toString('latin1');
      this.wake();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    // A reset after the server closed (the client was still sending): the answer is already in.
    this.socket.on('error', () => undefined);
  }

  write(text: string): void {
    this.socket.write(text);
  }

  until(condition: (c: Connection) => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      const look = () => {
        if (condition(this)) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(look);
      };
      look();
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const look of waiters) look();
  }
}

/** The status line, headers (lower-case names) and body of the first answer in `text`. */
export function firstAnswer(text: string) {
  const end = text.indexOf('\r\n\r\n');
  const [status, ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const at = line.indexOf(':');
      return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()];
    }),
  );
  const body = text.slice(end + 4, end + 4 + Number(headers['content-length'] ?? 0));
  return { status, headers, body };
}
