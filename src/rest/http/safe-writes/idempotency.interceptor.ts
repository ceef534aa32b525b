import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { API_TOKEN_ACTOR, principalOf } from '../auth/principal';
import { Observable, from, lastValueFrom } from 'rxjs';
import { IdempotencyStore } from '../../sql/idempotency-store';
import { SqlDatabase } from '../../db/sql-database';
import { ApiError } from '../response/api-error';
import { IdempotentWrites } from './idempotent-write';
import { resourceOf } from '../options/resource.decorator';
import { ExpressRenderRequest, formatOf } from '../response/respond';

/** 1-255 printable ASCII characters (space included). */
const KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * The request's Idempotency-Key, or undefined without one; a malformed key is 400, and so are two
 * of the header: Node joins them into one value ("k-1, k-2"), which would be taken silently as
 * a third key.
 */
export function idempotencyKeyOf(req: Request): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (req.headersDistinct['idempotency-key']!.length > 1) {
    throw new ApiError(
      400,
      'Request has more than one Idempotency-Key header; send one key per request.',
    );
  }
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new ApiError(400, 'Idempotency-Key must be 1 to 255 printable ASCII characters.');
  }
  return key;
}

/** The longest caller kept as it is; a longer one is kept as its SHA-256. */
const CALLER_MAX = 255;

/**
 * Who a key belongs to: `sub:<sub>` for a verified token (its `sub` claim), `api-token` for the
 * static API_TOKEN, empty for a request without credentials (or on a route that reads none). The
 * prefix keeps a token whose `sub` is `api-token` apart from the API token; a caller longer than
 * the column is kept as `sha256:<hex>` of it.
 */
export function callerOf(req: Request): string {
  const principal = principalOf(req);
  if (!principal) return '';
  if (principal.by === 'api-token') return API_TOKEN_ACTOR;
  const caller = `sub:${principal.actor}`;
  return caller.length <= CALLER_MAX
    ? caller
    : `sha256:${createHash('sha256').update(caller).digest('hex')}`;
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

/**
 * Idempotency-Key on the write routes it is attached to (`@Write()`, `@Conditional()`): without
 * the header the write runs as usual; with it, IdempotentWrites runs it once and the answer, new
 * or replayed, comes back already rendered, for the global interceptor to send as it is.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly writes: IdempotentWrites;

  constructor(
    private readonly reflector: Reflector,
    db: SqlDatabase,
    keys: IdempotencyStore,
  ) {
    this.writes = new IdempotentWrites(db, keys);
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const key = idempotencyKeyOf(req);
    if (key === undefined) return next.handle();
    const write = {
      owner: { caller: callerOf(req), key },
      fingerprint: fingerprintOf(req, res),
      format: formatOf(res),
      resource: resourceOf(this.reflector, context.getClass()),
      request: new ExpressRenderRequest(req, res.statusCode),
    };
    // handle() inside the handler passed, not before: Nest binds the route handler to the async
    // context it is called in, and the unit of work's transaction is found through that context.
    return from(
      this.writes.run(write, () => lastValueFrom(next.handle(), { defaultValue: undefined })),
    );
  }
}
