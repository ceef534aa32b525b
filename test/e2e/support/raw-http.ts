/**
 * Requests supertest cannot send (an absolute-form request line, two Host headers, `*`): written
 * on a socket byte for byte, the answer read back whole. The app is served by a server of its own
 * on 127.0.0.1 (an ephemeral port), with the request listeners of the application's server, so supertest's
 * requests and these never share a listener.
 *
 *     const raw = useRawHttp(t);
 *     const res = await raw.send('GET http://evil.example/api/demo/marbles HTTP/1.1', ['Host: 127.0.0.1']);
 */
import { Server, createServer } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { HOOK_TIMEOUT, TestApp } from './harness';

export interface RawResponse {
  status: number;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

export interface RawHttp {
  /**
   * One request on a new connection: the request line, the header lines (`Connection: close` is
   * added), and the body (Content-Length added when there is one). Resolves once the server has
   * closed the connection.
   */
  send(requestLine: string, headers: string[], body?: string): Promise<RawResponse>;
}

/** Registers the hooks that serve `t`'s app on a port of its own; call after `useApp`. */
export function useRawHttp(t: TestApp): RawHttp {
  let server: Server | undefined;
  let port = 0;
  beforeAll(async () => {
    // The application's request listeners, as its own server has them (the request target is
    // made origin-form there, in front of Express).
    server = createServer();
    for (const listener of t.app.getHttpServer().listeners('request'))
      server.on('request', listener as (...args: unknown[]) => void);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  }, HOOK_TIMEOUT);
  afterAll(async () => {
    if (server) await new Promise((resolve) => server!.close(resolve));
  }, HOOK_TIMEOUT);
  return {
    send(requestLine, headers, body) {
      const lines = [requestLine, ...headers, 'Connection: close'];
      if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
      const request = `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
      return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        // Written, not ended: Node's server drops the requests of a client that half-closes.
        const socket = connect(port, '127.0.0.1', () => socket.write(request));
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', reject);
        socket.on('close', () => {
          try {
            resolve(parse(Buffer.concat(chunks)));
          } catch (error) {
            reject(error as Error);
          }
        });
      });
    },
  };
}

/** An HTTP/1.1 answer: status line, headers, and a body by Content-Length, chunks, or to the end. */
function parse(bytes: Buffer): RawResponse {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`No complete answer: ${JSON.stringify(bytes.toString())}`);
  const [statusLine, ...headerLines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  let body = bytes.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    const chunks: Buffer[] = [];
    for (let at = 0; ;) {
      const lineEnd = body.indexOf('\r\n', at);
      const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (!size) break;
      chunks.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(chunks);
  }
  return { status, headers, body: body.toString('utf8') };
}
