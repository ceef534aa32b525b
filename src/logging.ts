import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { Params } from 'nestjs-pino';
import pino, { Logger } from 'pino';
import { AppConfig } from './config/configuration';

const SAFE_ID = /^[\w.:-]{1,128}$/;

const loggers = new WeakMap<AppConfig, Logger>();

/**
 * The process's pino logger: JSON lines on stdout, written asynchronously, or pretty lines
 * (LOG_FORMAT=pretty).
 */
export function rootLogger(config: AppConfig): Logger {
  let logger = loggers.get(config);
  if (!logger) {
    logger = config.prettyLogs
      ? pino({
          level: config.logLevel,
          transport: { target: 'pino-pretty', options: { singleLine: true } },
        })
      : // Written asynchronously, off the request's path; pino flushes what is left on exit.
        pino({ level: config.logLevel }, pino.destination({ dest: 1, sync: false }));
    loggers.set(config, logger);
  }
  return logger;
}

/**
 * nestjs-pino for the application's own logs, on the same pino instance. Its per-request
 * middleware is not used (`forRoutes: []`): no handler logs with request context, and the access
 * line below carries the request id.
 */
export function loggerParams(config: AppConfig): Params {
  return { pinoHttp: { logger: rootLogger(config) }, useExisting: true, forRoutes: [] };
}

/**
 * Express middleware, first of all: one access line per request (method, path, status, duration,
 * request id) when the response closes, at info, warn (4xx) or error (5xx, or cut off). The
 * request id comes from `X-Request-Id` when it is a sane token, else is generated, and is echoed
 * back. It writes the line directly rather than through pino-http, which builds two child
 * loggers (serializing the request) for every request, whatever the level.
 */
export function accessLog(config: AppConfig) {
  const logger = rootLogger(config);
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    res.once('close', () => {
      const status = res.statusCode;
      const complete = res.writableFinished;
      const level = !complete || status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const path = pathOf(req.originalUrl);
      logger[level](
        {
          req: { id, method: req.method, path },
          res: { status },
          duration_ms: Math.round(performance.now() - started),
        },
        `${req.method} ${path} ${complete ? status : 'aborted'}`,
      );
    });
    next();
  };
}

/** The path as the client sent it (format suffix included), without the query. */
function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}
