/**
 * The HTTP server's port check, its limits on slow clients, and its graceful stop.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { type Socket, createServer } from 'node:net';
import { Logger as NestLogger } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppConfig } from './config/configuration';
import { Lifecycle } from './health/lifecycle';

/**
 * How often Node looks for requests past `headersTimeout` / `requestTimeout`. Its default of 30 s
 * would let a 10 s limit run to 40 s; the check walks the open connections, cheap at 1 s.
 */
const TIMEOUT_CHECK_MS = 1000;

/**
 * Why the service cannot listen on `port`, in one line, or undefined when it can. Tried before
 * the application is created, so that a port in use stops the start before a migration runs or
 * the demo data is written. (Another process may still take the port in between: the listen
 * error then gets the same line.)
 */
export function portProblem(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(listenProblem(error, port)));
    probe.listen(port, () => probe.close(() => resolve(undefined)));
  });
}

/** The one line for an error of listening on `port`: what is wrong and what to do. */
export function listenProblem(error: NodeJS.ErrnoException, port: number): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return `Cannot start: port ${port} is in use by another process; stop it, or set PORT to a free port.`;
    case 'EACCES':
      return `Cannot start: listening on port ${port} is not permitted to this user; set PORT to 1024 or above.`;
    default:
      return `Cannot start: cannot listen on port ${port}: ${error.message}`;
  }
}

/**
 * Bounds slow clients before the server listens: a client that trickles its headers gets 408
 * after `headersTimeout`, one that trickles its body after `requestTimeout`; an idle keep-alive
 * connection is closed after `keepAliveTimeout`.
 */
export function limitSlowClients(server: Server, config: AppConfig): void {
  server.headersTimeout = config.headersTimeout * 1000;
  server.requestTimeout = config.requestTimeout * 1000;
  server.keepAliveTimeout = config.keepAliveTimeout * 1000;
  // Read by Node when the server starts listening.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    TIMEOUT_CHECK_MS;
  boundUnreadResponses(server);
}

/** Bytes of responses a connection may have waiting to be sent before its next request waits. */
export const UNSENT_BOUND = 1024 * 1024;
/**
 * How long a connection with requests waiting may go without its client reading any of its
 * answers before it is closed.
 */
export const UNSENT_STALL_MS = 20_000;
/** Pipelined requests a connection may have waiting for their turn; past it, it is closed. */
export const PIPELINED_MAX = 1000;

/** The requests of a connection waiting for their turn, and what they wait for. */
interface Gate {
  queue: [IncomingMessage, ServerResponse][];
  waiting: boolean;
  stall?: NodeJS.Timeout;
}

const GATE = Symbol('gate');
type GatedSocket = HttpSocket & { [GATE]?: Gate };

/**
 * Backpressure for clients that pipeline requests and do not read the answers. Node parses every
 * request of a chunk at once, and would run them all and keep every answer in memory until the
 * client reads: a few such connections take hundreds of megabytes. Here a connection's next
 * request runs only once the answer before it has been handed to the socket and the socket holds
 * at most UNSENT_BOUND bytes not yet sent; until then it waits, parsed but not run. A connection
 * with requests waiting whose client reads nothing for UNSENT_STALL_MS, or with more than
 * PIPELINED_MAX requests waiting, is closed. A client that waits for each answer before its next request never waits here: its
 * request runs at once, with no work beyond two property reads.
 */
export function boundUnreadResponses(
  server: Server,
  onClose: (reason: string) => void = (reason) =>
    new NestLogger('Backpressure').warn(`${reason}: connection closed`),
): void {
  const handlers = server.listeners('request') as ((
    req: IncomingMessage,
    res: ServerResponse,
  ) => void)[];
  server.removeAllListeners('request');
  const run = (req: IncomingMessage, res: ServerResponse) => {
    for (const handler of handlers) handler.call(server, req, res);
  };

  /**
   * While requests wait, every UNSENT_STALL_MS: a connection whose unsent bytes did not go down
   * since the last look (its client reads nothing) is closed.
   */
  const watch = (socket: GatedSocket, gate: Gate) => {
    if (gate.stall) return;
    let unsent = socket.writableLength;
    const look = () => {
      gate.stall = undefined;
      if (!gate.waiting || socket.destroyed) return;
      if (socket.writableLength > 0 && socket.writableLength >= unsent) {
        onClose(`a client read none of ${socket.writableLength} bytes for ${UNSENT_STALL_MS} ms`);
        socket.destroy();
        return;
      }
      unsent = socket.writableLength;
      gate.stall = setTimeout(look, UNSENT_STALL_MS);
    };
    gate.stall = setTimeout(look, UNSENT_STALL_MS);
  };

  const pump = (socket: GatedSocket, gate: Gate) => {
    while (gate.queue.length > 0 && !gate.waiting) {
      const [req, res] = gate.queue[0];
      if (socket.destroyed) {
        gate.queue.length = 0;
        break;
      }
      if (!res.socket) {
        // An answer before it is still being written: its turn comes once that one is sent.
        const current = socket._httpMessage;
        if (!current) break;
        gate.waiting = true;
        current.once('finish', () => {
          gate.waiting = false;
          pump(socket, gate);
        });
        watch(socket, gate);
        return;
      }
      if (socket.writableLength > UNSENT_BOUND) {
        gate.waiting = true;
        socket.once('drain', () => {
          gate.waiting = false;
          pump(socket, gate);
        });
        watch(socket, gate);
        return;
      }
      gate.queue.shift();
      run(req, res);
    }
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as GatedSocket;
    let gate = socket[GATE];
    const idle = !gate || (gate.queue.length === 0 && !gate.waiting);
    // The usual case: nothing waits on this connection, and nothing is being written before it.
    if (idle && res.socket && socket.writableLength <= UNSENT_BOUND) return run(req, res);
    if (!gate) {
      const created: Gate = { queue: [], waiting: false };
      socket.once('close', () => {
        clearTimeout(created.stall);
        created.queue.length = 0;
      });
      gate = socket[GATE] = created;
    }
    if (gate.queue.length >= PIPELINED_MAX) {
      onClose(`a client pipelined more than ${PIPELINED_MAX} requests`);
      socket.destroy();
      return;
    }
    gate.queue.push([req, res]);
    pump(socket, gate);
  });
}

/** The response a connection is busy with, if any (Node keeps it on the socket). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * On SIGTERM or SIGINT, at once: readiness turns 503, the listener closes (new connections are
 * refused), idle keep-alive connections are closed, and every response from then on (those in
 * flight included) carries `Connection: close`, so a keep-alive client sends nothing more on a
 * connection the server is about to close. Once the last connection has ended the application
 * closes (the database pools) and the process exits 0; after `timeout` seconds it exits 1.
 */
export function stopGracefully(app: NestExpressApplication, timeout: number, logger: Logger) {
  const server = app.getHttpServer() as Server;
  // The open connections, to reach the responses in flight when the signal comes.
  const sockets = new Set<HttpSocket>();
  server.on('connection', (socket: HttpSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  let stopping = false;
  const stop = (signal: string) => {
    // A worker of a cluster started from a terminal gets ^C twice: from it and from the primary.
    if (stopping) return;
    stopping = true;
    app.get(Lifecycle).draining = true;
    logger.log(`${signal}: finishing in-flight requests`, 'Shutdown');
    setTimeout(() => {
      logger.error(`still busy after ${timeout} s; exiting`, undefined, 'Shutdown');
      process.exit(1);
    }, timeout * 1000).unref();

    // Requests that arrive from now on, on connections already open.
    server.prependListener('request', (_req, res: ServerResponse) =>
      res.setHeader('Connection', 'close'),
    );
    for (const socket of sockets) {
      const res = socket._httpMessage;
      if (!res) continue; // idle: closed below
      if (!res.headersSent) res.setHeader('Connection', 'close');
      // A response already under way said keep-alive: end the connection once it is sent.
      else res.once('finish', () => socket.end());
    }
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    drained
      // The server is closed by now; Nest's close runs the shutdown hooks (the pools).
      .then(() => app.close())
      .then(
        () => process.exit(0),
        (error: Error) => {
          logger.error(error.message, error.stack, 'Shutdown');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
