import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RecordError } from '../core/errors';
import { ErrorBody } from '../core/render';
import {
  isDatabaseUnavailable,
  isStatementTimeout,
  mayHaveCommitted,
} from '../sql/database-errors';
import { ApiError, statusOf } from './api-error';
import { allowedMethods } from './methods';
import { sendError } from './respond';
import { Replay, sendStored } from './safe-writes';

/** A write whose COMMIT got no answer in time: saved or not, the client cannot tell yet. */
const MAY_HAVE_COMMITTED =
  'The database did not confirm this write in time: it may have been saved. Retrying it with ' +
  'the same Idempotency-Key is safe; without one, read the record before writing again.';

export interface Failure {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

/**
 * Every error leaves as CONTRACT §5 says: `{message, errors?}` in the negotiated format, with no
 * stack trace, SQL or driver text. Here the problems of the lower layers get their HTTP status;
 * unexpected errors are logged and answered with 500.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    if (res.headersSent) {
      res.end();
      return;
    }
    if (exception instanceof Replay) {
      sendStored(res, exception.response);
      return;
    }
    const failure = this.describe(exception, req);
    if (failure.status === 204) {
      res.status(204).setHeader('Allow', failure.headers!.Allow);
      res.end();
      return;
    }
    sendError(res, failure.status, failure.body, failure.headers);
  }

  private describe(exception: unknown, req: Request): Failure {
    const known = clientFailure(exception);
    if (known) return known;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      // The application's own 404s are RecordErrors; a bare 404 is Nest's "no route here".
      if (status === 404) return routeNotFound(req);
      return { status, body: { message: messageOf(exception) } };
    }
    if (isStatementTimeout(exception)) {
      this.logger.warn(`statement time limit reached: ${(exception as Error).message}`);
      return {
        status: 503,
        body: {
          message:
            'The query took longer than the time limit and was cancelled; narrow it (filters, a ' +
            'longer search term, no total count) or try again later.',
        },
        headers: { 'Retry-After': '5' },
      };
    }
    if (mayHaveCommitted(exception)) {
      this.logger.warn(`database unavailable: ${(exception as Error).message}`);
      return {
        status: 503,
        body: { message: MAY_HAVE_COMMITTED },
        headers: { 'Retry-After': '5' },
      };
    }
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn(`database unavailable: ${(exception as Error).message}`);
      return {
        status: 503,
        body: { message: 'The database is unavailable; try again shortly.' },
        headers: { 'Retry-After': '5' },
      };
    }
    this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    return { status: 500, body: { message: 'Internal server error.' } };
  }
}

/** The answer to a RecordError or an ApiError (the application's own errors), else undefined. */
export function clientFailure(exception: unknown): Failure | undefined {
  if (exception instanceof RecordError) {
    return { status: statusOf(exception), body: bodyOf(exception) };
  }
  if (exception instanceof ApiError) {
    return { status: exception.getStatus(), body: bodyOf(exception), headers: exception.headers };
  }
  return undefined;
}

function bodyOf(error: RecordError | ApiError): ErrorBody {
  const body: ErrorBody = { message: error.message };
  if (error.errors) body.errors = error.errors;
  return body;
}

function routeNotFound(req: Request): Failure {
  const allowed = allowedMethods(req);
  if (allowed.length === 0) return { status: 404, body: { message: 'Not found.' } };
  const headers = { Allow: allowed.join(', ') };
  if (req.method === 'OPTIONS') return { status: 204, body: { message: '' }, headers };
  return {
    status: 405,
    body: { message: `Method ${req.method} is not allowed here; allowed: ${allowed.join(', ')}.` },
    headers,
  };
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  return typeof message === 'string' ? message : exception.message;
}
