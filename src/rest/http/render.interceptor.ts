import {
  CallHandler,
  ExecutionContext,
  Inject,
  Injectable,
  NestInterceptor,
  Type,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { Observable, from, lastValueFrom, map, throwError } from 'rxjs';
import { ENTITY_TAG, Tagged } from '../core/preconditions';
import { CONTENT_TYPES, encodeError, renderBody } from '../core/render';
import { ResourceDefinition } from '../core/resource';
import { IdempotencyStore } from '../sql/idempotency';
import { SqlDatabase } from '../sql/port';
import { ApiError } from './api-error';
import { clientFailure } from './api-exception.filter';
import { allowedMethods, isRead } from './methods';
import { RESOURCE } from './resource.decorator';
import { publicOrigin } from './public-origin';
import { formatOf } from './respond';
import { REST_OPTIONS, RestOptions } from './rest-options';
import { CONDITIONAL, LostClaim, Replay, fingerprintOf, idempotencyKeyOf } from './safe-writes';

/**
 * Global interceptor: wraps pages in the envelope and encodes every result as JSON or XML, with
 * the ETag of a single record. On writes it also applies the safe-write rules (CONTRACT §9):
 * If-Match where the route takes it, and Idempotency-Key, whose request runs as one unit of work
 * with the storing of its response.
 */
@Injectable()
export class RenderInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly db: SqlDatabase,
    private readonly keys: IdempotencyStore,
    @Inject(REST_OPTIONS) private readonly options: RestOptions,
  ) {}

  /** The declaration of each controller class, looked up once. */
  private readonly resources = new WeakMap<Type, ResourceDefinition | null>();
  /** Whether each handler is a single-record write, looked up once. */
  private readonly conditional = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const resource = this.resourceOf(context.getClass()) ?? undefined;
    const present = (result: unknown) => this.present(req, res, resource, result);
    if (isRead(req.method)) return next.handle().pipe(map(present));

    let key: string | undefined;
    try {
      this.checkPreconditionHeaders(req, context.getHandler());
      key = idempotencyKeyOf(req);
    } catch (error) {
      return throwError(() => error);
    }
    if (key === undefined) return next.handle().pipe(map(present));
    return from(this.once(req, res, key, next, present));
  }

  /** The body of a result, with its headers: Allow, Location, Content-Type, ETag. */
  private present(
    req: Request,
    res: Response,
    resource: ResourceDefinition | undefined,
    result: unknown,
  ): string | undefined {
    if (req.method === 'OPTIONS') res.setHeader('Allow', allowedMethods(req).join(', '));
    if (result === undefined) return undefined;
    if (res.statusCode === 201 && isRecord(result)) {
      res.setHeader('Location', `${origin(req)}${req.path.replace(/\/$/, '')}/${result.id}`);
    }
    const tag = (result as Tagged)[ENTITY_TAG];
    if (tag !== undefined) res.setHeader('ETag', tag);
    const format = formatOf(res);
    res.setHeader('Content-Type', CONTENT_TYPES[format]);
    return renderBody(result, format, resource, () => requestUrl(req));
  }

  /** If-Match only on single-record writes; with REQUIRE_IF_MATCH, there it is required (428). */
  private checkPreconditionHeaders(req: Request, handler: object): void {
    let conditional = this.conditional.get(handler);
    if (conditional === undefined) {
      conditional = this.reflector.get<boolean>(CONDITIONAL, handler as never) === true;
      this.conditional.set(handler, conditional);
    }
    const given = req.headers['if-match'] !== undefined;
    if (conditional && !given && this.options.requireIfMatch) {
      throw new ApiError(
        428,
        'This write needs an If-Match header with the record\'s ETag (or "*"): read the record first.',
      );
    }
    if (!conditional && given) {
      throw new ApiError(
        400,
        'If-Match applies to writes of one record (PUT, PATCH, DELETE of /:id and the record actions), not here.',
      );
    }
  }

  /**
   * A write with an Idempotency-Key: claim the key, then run the request and store its response
   * in one unit of work (one transaction). A stored response is replayed; 4xx answers are stored
   * as well (their write rolled back); 5xx answers give the key up, so a retry can succeed.
   */
  private async once(
    req: Request,
    res: Response,
    key: string,
    next: CallHandler,
    present: (result: unknown) => string | undefined,
  ): Promise<string | undefined> {
    const fingerprint = fingerprintOf(req, res);
    const claim = await this.keys.claim(key, fingerprint);
    switch (claim.kind) {
      case 'replay':
        throw new Replay(claim.response);
      case 'mismatch':
        throw new ApiError(
          422,
          'This Idempotency-Key was used for another request (method, path, format or body); use a new key.',
        );
      case 'running':
        throw new ApiError(
          409,
          'A request with this Idempotency-Key is still in progress; retry shortly to get its response.',
          undefined,
          { 'Retry-After': '1' },
        );
    }
    try {
      return await this.db.unitOfWork(async () => {
        // handle() here, not before: Nest binds the handler to the async context it is called in,
        // and the unit of work's transaction is found through that context.
        const result = await lastValueFrom(next.handle(), { defaultValue: undefined });
        const body = present(result);
        const stored = await this.keys.finish(key, claim.claim, {
          status: res.statusCode,
          contentType: header(res, 'Content-Type'),
          location: header(res, 'Location'),
          etag: header(res, 'ETag'),
          body: Buffer.from(body ?? '', 'utf8'),
        });
        if (!stored) throw new LostClaim();
        return body;
      });
    } catch (error) {
      res.removeHeader('Location');
      res.removeHeader('ETag');
      const failure = error instanceof LostClaim ? undefined : clientFailure(error);
      if (failure) {
        const format = formatOf(res);
        await this.keys
          .finish(key, claim.claim, {
            status: failure.status,
            contentType: CONTENT_TYPES[format],
            location: null,
            etag: null,
            body: Buffer.from(encodeError(format, failure.body), 'utf8'),
          })
          .catch(() => undefined);
      } else if (!(error instanceof LostClaim)) {
        await this.keys.release(key, claim.claim).catch(() => undefined);
      }
      throw error;
    }
  }

  private resourceOf(controller: Type): ResourceDefinition | null {
    let resource = this.resources.get(controller);
    if (resource === undefined) {
      resource = (this.reflector.get(RESOURCE, controller) as ResourceDefinition) ?? null;
      this.resources.set(controller, resource);
    }
    return resource;
  }
}

function header(res: Response, name: string): string | null {
  const value = res.getHeader(name);
  return value === undefined ? null : String(value);
}

function isRecord(result: unknown): result is { id: number } {
  return typeof result === 'object' && result !== null && 'id' in result && !Array.isArray(result);
}

function origin(req: Request): string {
  return publicOrigin(req);
}

export function requestUrl(req: Request) {
  const original = req.originalUrl;
  const queryAt = original.indexOf('?');
  return {
    base: `${origin(req)}${queryAt === -1 ? original : original.slice(0, queryAt)}`,
    query: queryAt === -1 ? '' : original.slice(queryAt + 1),
  };
}
