import { BadRequestException, HttpException, NotFoundException } from '@nestjs/common';
import { RecordError } from '../../../../src/rest/core/errors';
import { ApiError } from '../../../../src/rest/http/response/api-error';
import { FailedRequest, failureOf } from '../../../../src/rest/http/response/failures';

/** A log that keeps what it was told. */
function log() {
  const lines: string[] = [];
  return {
    lines,
    warn: (message: string) => void lines.push(`warn: ${message}`),
    error: (message: string | undefined) => void lines.push(`error: ${message?.split('\n')[0]}`),
  };
}

const at = (method: string, allowed: string[] = []): FailedRequest => ({
  method,
  allowedMethods: () => allowed,
});

describe('failureOf', () => {
  it('should give a RecordError the status of its problem and its field errors', () => {
    const errors = { name: ['is required.'] };
    expect(failureOf(RecordError.invalid('Validation failed.', errors), at('POST'), log())).toEqual(
      {
        status: 400,
        body: { message: 'Validation failed.', errors },
      },
    );
    expect(
      failureOf(new RecordError('not-found', 'Marble 9 not found.'), at('GET'), log()),
    ).toEqual({ status: 404, body: { message: 'Marble 9 not found.' } });
    expect(failureOf(new RecordError('precondition-failed', 'Changed.'), at('PUT'), log())).toEqual(
      { status: 412, body: { message: 'Changed.' } },
    );
    expect(failureOf(new RecordError('invalid-items', 'Bad.', [null]), at('POST'), log())).toEqual({
      status: 422,
      body: { message: 'Bad.', errors: [null] },
    });
  });

  it('should keep the status and headers of an ApiError', () => {
    const busy = new ApiError(409, 'Busy.', undefined, { 'Retry-After': '1' });
    expect(failureOf(busy, at('POST'), log())).toEqual({
      status: 409,
      body: { message: 'Busy.' },
      headers: { 'Retry-After': '1' },
    });
  });

  it("should answer Nest's bare 404 as no route: 404, 405 with Allow, or 204 to OPTIONS", () => {
    const none = new NotFoundException();
    expect(failureOf(none, at('GET'), log())).toEqual({
      status: 404,
      body: { message: 'Not found.' },
    });
    expect(failureOf(none, at('DELETE', ['GET', 'HEAD', 'OPTIONS']), log())).toEqual({
      status: 405,
      body: { message: 'Method DELETE is not allowed here; allowed: GET, HEAD, OPTIONS.' },
      headers: { Allow: 'GET, HEAD, OPTIONS' },
    });
    expect(failureOf(none, at('OPTIONS', ['GET', 'HEAD', 'OPTIONS']), log())).toEqual({
      status: 204,
      body: { message: '' },
      headers: { Allow: 'GET, HEAD, OPTIONS' },
    });
  });

  it("should keep the status and message of Nest's other HTTP errors", () => {
    expect(failureOf(new BadRequestException('Bad body.'), at('POST'), log())).toEqual({
      status: 400,
      body: { message: 'Bad body.' },
    });
    expect(failureOf(new HttpException('Too large.', 413), at('POST'), log())).toEqual({
      status: 413,
      body: { message: 'Too large.' },
    });
  });

  it('should answer an unexpected error with a bare 500 and log it', () => {
    const logged = log();
    const failure = failureOf(new Error('SELECT secret FROM t'), at('GET'), logged);
    expect(failure).toEqual({ status: 500, body: { message: 'Internal server error.' } });
    expect(logged.lines).toEqual(['error: Error: SELECT secret FROM t']);
  });

  it('should answer an unreachable database with 503 and Retry-After, and warn', () => {
    const logged = log();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), {
      code: 'ECONNREFUSED',
    });
    expect(failureOf(refused, at('GET'), logged)).toEqual({
      status: 503,
      body: { message: 'The database is unavailable; try again shortly.' },
      headers: { 'Retry-After': '5' },
    });
    expect(logged.lines).toEqual([
      'warn: database unavailable: connect ECONNREFUSED 127.0.0.1:3306',
    ]);
  });

  it('should answer a write that kept conflicting with 503, Retry-After and its own message', () => {
    const logged = log();
    const conflict = Object.assign(
      new Error('Deadlock found when trying to get lock; try restarting transaction'),
      { code: 'ER_LOCK_DEADLOCK', errno: 1213 },
    );
    const wrapped = Object.assign(new Error('Query failed'), { driverError: conflict });
    for (const error of [conflict, wrapped]) {
      expect(failureOf(error, at('PATCH'), logged)).toEqual({
        status: 503,
        body: {
          message:
            'A concurrent write to the same records conflicted with this one on every try; ' +
            'nothing was saved. Send it again.',
        },
        headers: { 'Retry-After': '1' },
      });
    }
    expect(logged.lines[0]).toBe(
      'warn: write conflict, tries spent: Deadlock found when trying to get lock; try restarting transaction',
    );
  });

  it("should answer a write-set over a Galera cluster's limits with 413, and warn", () => {
    const logged = log();
    const rows = Object.assign(new Error('wsrep_max_ws_rows exceeded'), {
      code: 'ER_ERROR_DURING_COMMIT',
      errno: 1180,
    });
    const bytes = Object.assign(new Error('Maximum writeset size exceeded'), {
      code: 'ER_UNKNOWN_ERROR',
      errno: 1105,
    });
    const wrapped = Object.assign(new Error('Query failed'), { driverError: rows });
    for (const error of [rows, bytes, wrapped]) {
      expect(failureOf(error, at('POST'), logged)).toEqual({
        status: 413,
        body: {
          message:
            'This write is larger than the database cluster accepts in one transaction (its ' +
            'write-set limits, wsrep_max_ws_rows and wsrep_max_ws_size); nothing was saved. ' +
            'Send fewer items at a time.',
        },
      });
    }
    expect(logged.lines[1]).toBe(
      "warn: write-set over the cluster's limit: Maximum writeset size exceeded",
    );
    // Another 1180 or 1105 is not one of them.
    const other = Object.assign(new Error('Got error 5 during COMMIT'), { errno: 1180 });
    expect(failureOf(other, at('POST'), log()).status).toBe(500);
    expect(failureOf(new RecordError('too-large', 'Too many.'), at('POST'), log())).toEqual({
      status: 413,
      body: { message: 'Too many.' },
    });
  });

  it('should answer a statement cancelled at its time limit with 503 and Retry-After', () => {
    const logged = log();
    const cancelled = Object.assign(new Error('Query execution was interrupted'), { errno: 1969 });
    expect(failureOf(cancelled, at('GET'), logged)).toEqual({
      status: 503,
      body: {
        message:
          'The query took longer than the time limit and was cancelled; narrow it (filters, a ' +
          'longer search term, no total count) or try again later.',
      },
      headers: { 'Retry-After': '5' },
    });
    expect(logged.lines).toEqual([
      'warn: statement time limit reached: Query execution was interrupted',
    ]);
  });
});
