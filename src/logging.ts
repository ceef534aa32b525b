import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Params } from 'nestjs-pino';
import { HttpLogger, Options, pinoHttp } from 'pino-http';
import { AppConfig } from './config/configuration';

const SAFE_ID = /^[\w.:-]{1,128}$/;

/**
 * One JSON line per request (method, path, status, duration, request id), level from LOG_LEVEL,
 * pretty lines when LOG_FORMAT=pretty (or NODE_ENV=development). The request id comes from
 * `X-Request-Id` when it is a sane token, else is generated, and is echoed back either way.
 */
export function httpLogger(config: AppConfig): HttpLogger {
  let logger = loggers.get(config);
  if (!logger) {
    logger = pinoHttp(options(config));
    loggers.set(config, logger);
  }
  return logger;
}

/**
 * nestjs-pino for the application's own logs, on the same pino instance. `useExisting`: the
 * access-log middleware is `httpLogger`, installed first of all in `configureApp`, so that
 * requests answered by earlier middleware (406, 401, 413) are logged and carry a request id too.
 */
export function loggerParams(config: AppConfig): Params {
  return { pinoHttp: { logger: httpLogger(config).logger }, useExisting: true };
}

const loggers = new WeakMap<AppConfig, HttpLogger>();

function options(config: AppConfig): Options {
  return {
    level: config.logLevel,
    transport: config.prettyLogs
      ? { target: 'pino-pretty', options: { singleLine: true } }
      : undefined,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel: (_req, res, error) =>
      error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    customSuccessMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
    serializers: {
      req: (req: { id: string; method: string; raw: IncomingMessage }) => ({
        id: req.id,
        method: req.method,
        path: pathOf(req.raw),
      }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customAttributeKeys: { responseTime: 'duration_ms' },
  };
}

/** The path as the client sent it (format suffix included), without the query. */
function pathOf(req: IncomingMessage): string {
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}
