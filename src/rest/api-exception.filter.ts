import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { allowedMethods } from './allowed-methods';
import { ApiError } from './api-error';
import { CONTENT_TYPES, formatOf } from './format';
import { ErrorBody, encodeError } from './render';
import { isDatabaseUnavailable } from './database-errors';

interface Failure {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

/**
 * Every error leaves as CONTRACT §5 says: `{message, errors?}` in the negotiated format, with no
 * stack trace, SQL or driver text. Unexpected errors are logged here and answered with 500.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const failure = this.describe(exception, req);
    if (res.headersSent) {
      res.end();
      return;
    }
    const format = formatOf(res);
    res.status(failure.status);
    if (failure.status === 204) {
      res.setHeader('Allow', failure.headers!.Allow);
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(failure.headers ?? {})) res.setHeader(name, value);
    res.setHeader('Content-Type', CONTENT_TYPES[format]);
    res.send(encodeError(format, failure.body));
  }

  private describe(exception: unknown, req: Request): Failure {
    if (exception instanceof ApiError) {
      const body: ErrorBody = { message: exception.message };
      if (exception.errors) body.errors = exception.errors;
      return { status: exception.getStatus(), body, headers: exception.headers };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      // The application's own 404s are ApiErrors; a bare 404 is Nest's "no route here".
      if (status === 404) return routeNotFound(req);
      return { status, body: { message: messageOf(exception) } };
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

function routeNotFound(req: Request): Failure {
  const allowed = allowedMethods(req);
  if (allowed.length === 0) return { status: 404, body: { message: 'Not found.' } };
  if (req.method === 'OPTIONS') {
    return {
      status: 204,
      body: { message: '' },
      headers: { Allow: allowed.join(', ') },
    };
  }
  return {
    status: 405,
    body: { message: `Method ${req.method} is not allowed here; allowed: ${allowed.join(', ')}.` },
    headers: { Allow: allowed.join(', ') },
  };
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  return typeof message === 'string' ? message : exception.message;
}
