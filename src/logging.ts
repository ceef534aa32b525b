import { randomUUID } from 'node:crypto';
import { LoggerService } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Params } from 'nestjs-pino';
import { Level, Logger } from 'pino';
import { AppConfig } from './config/configuration';
import { actorOf } from './rest/http/auth/principal';
import { CUT_OFF } from './rest/http/request/body';
import { Metrics, routeTemplate } from './observability/metrics';
import { rootLogger, SLOW_CONSUMER } from './observability/root-logger';
import {
  answerTrace,
  localSpan,
  parseTraceparent,
  RequestSpan,
  Tracer,
} from './observability/tracing';

const SAFE_ID = /^[\w.:-]{1,128}$/;

export { rootLogger };

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
 * request id, trace id) when the response closes, at info, warn (4xx) or error (5xx, or cut
 * off; an event stream its consumer closed is info, see `unfinished`), with the request's actor
 * (`actor`, see auth/principal.ts) when it has one. The request id comes from `X-Request-Id` when
 * it is a sane token, else is generated, and is echoed back; the trace is the caller's
 * (`traceparent`) or a new one, and the response's `traceparent` names this request's span. It
 * writes the line directly rather than through pino-http, which builds two child loggers
 * (serializing the request) for every request, whatever the level. The same close event ends
 * the request's metrics and span.
 */
export function accessLog(
  config: AppConfig,
  { metrics, tracer }: { metrics?: Metrics; tracer?: Tracer } = {},
) {
  const logger = rootLogger(config);
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    const parent = parseTraceparent(req.headers.traceparent, req.headers.tracestate);
    const span = tracer ? tracer.startRequest(req, parent) : localSpan(parent);
    answerTrace(res, span, parent);
    const started = performance.now();
    if (metrics) metrics.inFlight++;
    res.once('close', () => {
      const status = res.statusCode;
      const elapsed = performance.now() - started;
      if (metrics) {
        metrics.inFlight--;
        metrics.requestEnded(req, status, elapsed / 1000);
      }
      // Who made it (a token's `sub`, `api-token`), when access control knows.
      const actor = actorOf(req);
      span.end?.(routeTemplate(req), status, actor);
      const cut = res.writableFinished && !res.locals[CUT_OFF] ? undefined : unfinished(res);
      const level = cut ? cut.level : levelOf(status);
      if (!logger.isLevelEnabled(level)) return;
      const path = pathOf(req.originalUrl);
      logger[level](
        {
          req:
            actor === null
              ? { id, method: req.method, path }
              : { id, method: req.method, path, actor },
          res: { status },
          duration_ms: Math.round(elapsed),
          trace_id: span.traceId,
          span_id: span.spanId,
        },
        `${req.method} ${path} ${cut ? cut.says : status}`,
      );
    });
    if (tracer) {
      res.locals.span = span;
      tracer.within(span, next);
    } else {
      next();
    }
  };
}

function levelOf(status: number): Level {
  return status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
}

/**
 * The level and word of a response that did not finish. An event stream (`text/event-stream`)
 * has no end of its own: its consumer closing it is how it ends (info), and the service closing
 * a consumer that does not read (events/event-hub.ts) is a warning. Any other response cut off
 * before its end is an error, and so is a request whose body was cut off (CUT_OFF), whether or
 * not a 400 then made it into the closing socket.
 */
function unfinished(res: Response): { level: Level; says: string } {
  const type = res.getHeader('Content-Type');
  if (typeof type !== 'string' || !type.startsWith('text/event-stream')) {
    return { level: 'error', says: 'aborted' };
  }
  return res.locals[SLOW_CONSUMER]
    ? { level: 'warn', says: `${res.statusCode}, stream closed: the consumer did not read` }
    : { level: 'info', says: `${res.statusCode}, stream closed by the client` };
}

/**
 * With tracing, after the body parsers: the request's span becomes current again (a body is read
 * in stream events, which do not carry it), so the handler's statements are its children.
 */
export function resumeSpan(tracer: Tracer) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const span = res.locals.span as RequestSpan | undefined;
    if (span) tracer.within(span, next);
    else next();
  };
}

/** The path as the client sent it (format suffix included), without the query. */
function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

/** Nest's start-up lines that only a developer needs: the route map, module wiring. */
const DEBUG_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
  // An error that stops the start; main.ts writes the one line that says what happened.
  'ExceptionHandler',
]);

/**
 * Nest's logger on the process's pino logger, given to NestFactory.create so that every line,
 * from the first, is pino's: Nest's `log` is info (debug for the contexts above), `verbose` is
 * trace; the context goes in `context`.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    // Nest passes (message, context) or, for errors, (message, stack, context).
    const context =
      params.length > 0 && typeof params[params.length - 1] === 'string'
        ? (params.pop() as string)
        : undefined;
    if (context && DEBUG_CONTEXTS.has(context)) level = 'debug';
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = { context };
    const stack = params.find((p) => typeof p === 'string');
    if (stack) fields.stack = stack;
    if (message instanceof Error) {
      fields.err = message;
      this.logger[level](fields, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ ...fields, ...message });
    } else {
      this.logger[level](fields, String(message));
    }
  }
}
