/**
 * The HTTP server's limits on slow clients, and its graceful stop.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
