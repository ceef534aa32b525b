import { HttpException } from '@nestjs/common';
import { RecordError, capErrors, withMore } from '../../core/errors';
import { ErrorBody, Failure } from '../../core/output/render';
import {
  isDatabaseUnavailable,
  isStatementTimeout,
  isWriteConflict,
  isWriteSetTooLarge,
  mayHaveCommitted,
} from '../../db/database-errors';
import { ApiError, statusOf } from './api-error';
import { methodNotAllowed } from './methods';

/** What the mapping needs of the request: its method and the methods its path serves. */
export interface FailedRequest {
  method: string;
  allowedMethods(): string[];
}

/** Where the problems worth an operator's attention go. */
export interface FailureLog {
  warn(message: string): void;
  error(message: string | undefined): void;
}

/**
 * The answer to an exception: the application's own errors carry their status; Nest's bare 404
 * is "no route here" (404, or 405 with `Allow` where the path serves other methods, and 204 with
 * `Allow` to an OPTIONS there); a statement over its time limit, a write that kept conflicting
 * with concurrent ones, or an unreachable database is a 503 with `Retry-After`; a write over a
 * Galera cluster's write-set limits is a 413; anything else is
 * logged and answered with a bare 500. No answer carries a stack trace, SQL or driver text.
 */
export function failureOf(exception: unknown, req: FailedRequest, log: FailureLog): Failure {
  const known = clientFailure(exception);
  if (known) return known;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    // The application's own 404s are RecordErrors; a bare 404 is Nest's "no route here".
    if (status === 404) return routeNotFound(req);
    return { status, body: { message: messageOf(exception) } };
  }
  if (isStatementTimeout(exception)) {
    log.warn(`statement time limit reached: ${(exception as Error).message}`);
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
    log.warn(`write may have been saved: ${(exception as Error).message}`);
    return { status: 503, body: { message: MAY_HAVE_COMMITTED }, headers: { 'Retry-After': '5' } };
  }
  if (isWriteConflict(exception)) {
    log.warn(`write conflict, tries spent: ${(exception as Error).message}`);
    return { status: 503, body: { message: WRITE_CONFLICT }, headers: { 'Retry-After': '1' } };
  }
  if (isWriteSetTooLarge(exception)) {
    log.warn(`write-set over the cluster's limit: ${(exception as Error).message}`);
    return { status: 413, body: { message: WRITE_SET_TOO_LARGE } };
  }
  if (isDatabaseUnavailable(exception)) {
    log.warn(`database unavailable: ${(exception as Error).message}`);
    return {
      status: 503,
      body: { message: 'The database is unavailable; try again shortly.' },
      headers: { 'Retry-After': '5' },
    };
  }
  log.error(exception instanceof Error ? exception.stack : String(exception));
  return { status: 500, body: { message: 'Internal server error.' } };
}

/**
 * A write whose COMMIT got no answer (the connection was lost, or the deadline passed): saved or
 * not, the client cannot tell yet. 503, not 500: nothing is wrong with the request, and the way to
 * find out is given.
 */
const MAY_HAVE_COMMITTED =
  'The database did not confirm this write: it may have been saved. Retrying it with the same ' +
  'Idempotency-Key is safe; without one, read the record before writing again.';

/**
 * A write that lost to concurrent writes of the same records (a deadlock, or on a Galera cluster a
 * failed certification) on every try the service gave it: rolled back each time, nothing saved.
 * The database is fine; the same request is likely to pass when sent again.
 */
export const WRITE_CONFLICT =
  'A concurrent write to the same records conflicted with this one on every try; nothing was ' +
  'saved. Send it again.';

/**
 * A write the Galera cluster refused as larger than one transaction may be there (its rows
 * passed `wsrep_max_ws_rows`, or its bytes `wsrep_max_ws_size`), where the service's own count
 * before writing did not see it coming: rolled back whole, and the same request would fail again.
 */
export const WRITE_SET_TOO_LARGE =
  'This write is larger than the database cluster accepts in one transaction (its write-set ' +
  'limits, wsrep_max_ws_rows and wsrep_max_ws_size); nothing was saved. Send fewer items at a time.';

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

/** `{message, errors?}`, naming at most MAX_NAMED_FIELDS fields (the message says how many more). */
function bodyOf(error: RecordError | ApiError): ErrorBody {
  const body: ErrorBody = { message: error.message };
  if (error instanceof ApiError) Object.assign(body, error.members);
  if (error.errors) {
    const capped = capErrors(error.errors, error instanceof RecordError ? error.unlisted : 0);
    body.message = withMore(error.message, capped);
    body.errors = capped.errors;
  }
  return body;
}

function routeNotFound(req: FailedRequest): Failure {
  const allowed = req.allowedMethods();
  if (allowed.length === 0) return { status: 404, body: { message: 'Not found.' } };
  if (req.method === 'OPTIONS') {
    return { status: 204, body: { message: '' }, headers: { Allow: allowed.join(', ') } };
  }
  return methodNotAllowed(req.method, allowed);
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  return typeof message === 'string' ? message : exception.message;
}
