/**
 * The HTTP side of safe writes (CONTRACT §9): the Idempotency-Key header, the fingerprint of a
 * request, the replay of a stored response, and `If-Match` on the single-record writes.
 */
import { createHash } from 'node:crypto';
import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Precondition, parseIfMatch } from '../core/preconditions';
import { StoredResponse } from '../sql/idempotency';
import { ApiError } from './api-error';
import { formatOf } from './respond';

/** 1-255 printable ASCII characters (space included). */
const KEY = /^[\x20-\x7e]{1,255}$/;

/** The request's Idempotency-Key, or undefined without one; a malformed key is 400. */
export function idempotencyKeyOf(req: Request): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new ApiError(400, 'Idempotency-Key must be 1 to 255 printable ASCII characters.');
  }
  return key;
}

/**
 * What makes two requests with one key the same request: method, path with its query, the
 * negotiated format (the stored body is in it) and the body's bytes, as a SHA-256.
 */
export function fingerprintOf(req: Request, res: Response): string {
  const body = res.locals.rawBody as Buffer | undefined;
  return createHash('sha256')
    .update(`${req.method} ${req.originalUrl} ${formatOf(res)}\n`)
    .update(body ?? Buffer.alloc(0))
    .digest('hex');
}

/** Thrown to answer with a stored response; the exception filter sends it. */
export class Replay extends Error {
  constructor(readonly response: StoredResponse) {
    super('replay');
  }
}

/** Thrown when a request's claim on its key was taken over before it could store its answer. */
export class LostClaim extends ApiError {
  constructor() {
    super(
      409,
      'This Idempotency-Key was taken over by another request; nothing was changed. ' +
        'Retry to get its response.',
    );
  }
}

/** Sends a stored response as it was first sent, marked `Idempotent-Replayed: true`. */
export function sendStored(res: Response, stored: StoredResponse): void {
  res.status(stored.status);
  if (stored.contentType) res.setHeader('Content-Type', stored.contentType);
  if (stored.location) res.setHeader('Location', stored.location);
  if (stored.etag) res.setHeader('ETag', stored.etag);
  res.setHeader('Idempotent-Replayed', 'true');
  if (stored.body.length === 0) res.end();
  else res.send(stored.body);
}

export const CONDITIONAL = Symbol('conditional write');

/** Marks a single-record write: it takes If-Match, and REQUIRE_IF_MATCH applies to it. */
export const Conditional = () => SetMetadata(CONDITIONAL, true);

/** The route's If-Match as a precondition (undefined without one); a malformed header is 400. */
export const IfMatch = createParamDecorator(
  (_: unknown, context: ExecutionContext): Precondition | undefined =>
    parseIfMatch(context.switchToHttp().getRequest<Request>().headers['if-match']),
);
