/**
 * A write with an Idempotency-Key, free of Nest and Express: claim the key, run the handler and
 * store its rendered answer in one unit of work, replay a stored answer. The Nest side is
 * idempotency.interceptor.ts.
 */
import {
  Format,
  RenderRequest,
  RenderedResponse,
  Rendering,
  renderError,
  renderResult,
} from '../core/render';
import { ResourceDefinition } from '../core/resource';
import type { IdempotencyStore, StoredResponse } from '../sql/idempotency';
import type { SqlDatabase } from '../sql/sql-database';
import { ApiError } from './api-error';
import { clientFailure } from './failures';

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

/** One write with a key, as the unit needs it. */
export interface KeyedWrite {
  key: string;
  /** What makes two requests with one key the same request (see `fingerprintOf`). */
  fingerprint: string;
  format: Format;
  resource: ResourceDefinition | undefined;
  request: RenderRequest;
}

export type KeyStore = Pick<IdempotencyStore, 'claim' | 'finish' | 'release'>;
export type UnitOfWork = Pick<SqlDatabase, 'unitOfWork'>;

export class IdempotentWrites {
  constructor(
    private readonly db: UnitOfWork,
    private readonly keys: KeyStore,
  ) {}

  /**
   * Runs `handler` once per key. A stored answer is replayed (`Idempotent-Replayed: true`); a key
   * used for another request is a 422, one whose request still runs a 409. Otherwise the handler
   * runs in one unit of work (one transaction) with the storing of its rendered answer. A 4xx
   * error is stored as well (its write rolled back) and rethrown; any other error gives the key
   * up, so that a retry can succeed.
   *
   * `handler` must start the handler when called, not before: its work joins the unit of work
   * through the async context it runs in.
   */
  async run(write: KeyedWrite, handler: () => Promise<unknown>): Promise<RenderedResponse> {
    const { key } = write;
    const claim = await this.keys.claim(key, write.fingerprint);
    switch (claim.kind) {
      case 'replay':
        return replayOf(claim.response);
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
        const result = await handler();
        const status = write.request.status;
        const rendered = renderResult(result, write.format, write.resource, write.request);
        const response = new RenderedResponse(status, rendered.headers, bytesOf(rendered));
        if (!(await this.keys.finish(key, claim.claim, storedOf(response)))) throw new LostClaim();
        return response;
      });
    } catch (error) {
      if (error instanceof LostClaim) throw error;
      const failure = clientFailure(error);
      if (failure) {
        const rendered = renderError(write.format, failure, write.request);
        const response = new RenderedResponse(failure.status, rendered.headers, bytesOf(rendered));
        await this.keys.finish(key, claim.claim, storedOf(response)).catch(() => undefined);
      } else {
        await this.keys.release(key, claim.claim).catch(() => undefined);
      }
      throw error;
    }
  }
}

function bytesOf(rendered: Rendering): Buffer {
  return Buffer.from(rendered.body ?? '', 'utf8');
}

/** What the store keeps of an answer: status, Content-Type, Location, ETag and the body. */
export function storedOf(response: RenderedResponse): StoredResponse {
  const { headers } = response;
  return {
    status: response.status,
    contentType: headers['Content-Type'] ?? null,
    location: headers.Location ?? null,
    etag: headers.ETag ?? null,
    body: response.body,
  };
}

/** A stored answer as it was first sent, marked `Idempotent-Replayed: true`. */
export function replayOf(stored: StoredResponse): RenderedResponse {
  const headers: Record<string, string> = {};
  if (stored.contentType) headers['Content-Type'] = stored.contentType;
  if (stored.location) headers.Location = stored.location;
  if (stored.etag) headers.ETag = stored.etag;
  headers['Idempotent-Replayed'] = 'true';
  return new RenderedResponse(stored.status, headers, stored.body);
}
