/**
 * A write with an Idempotency-Key, free of Nest and Express: run the handler and store its
 * rendered answer under the key in one unit of work, replay a stored answer. The Nest side is
 * idempotency.interceptor.ts.
 */
import { RenderRequest, RenderedResponse, Rendering } from '../../core/output/render';
import { ResourceDefinition } from '../../core/resource';
import type { IdempotencyStore, KeyOwner, StoredResponse } from '../../sql/idempotency-store';
import type { SqlDatabase } from '../../db/sql-database';
import { ApiError } from '../response/api-error';
import { clientFailure } from '../response/failures';
import { Format, renderError, renderResult } from '../response/renderers';

/** Thrown inside a unit of work whose key another request stored under first: it rolls back. */
class KeyTaken extends Error {}

/** The unit of work of a keyed write: its key makes running it again safe. */
const IDEMPOTENT = { idempotent: true };

/** Rounds a request makes when its key's row expired and was deleted under it. */
const ROUNDS = 3;

/** One write with a key, as the unit needs it. */
export interface KeyedWrite {
  /** The key and who sent it: each caller's keys are its own. */
  owner: KeyOwner;
  /** What makes two requests with one key the same request (see `fingerprintOf`). */
  fingerprint: string;
  format: Format;
  resource: ResourceDefinition | undefined;
  request: RenderRequest;
}

export type KeyStore = Pick<IdempotencyStore, 'store' | 'lookup'>;
export type UnitOfWork = Pick<SqlDatabase, 'unitOfWork'>;

const running = () =>
  new ApiError(
    409,
    'A request with this Idempotency-Key is still in progress; retry shortly to get its response.',
    undefined,
    { 'Retry-After': '1' },
  );

const mismatch = () =>
  new ApiError(
    422,
    'This Idempotency-Key was used for another request (method, path, format or body); use a new key.',
  );

export class IdempotentWrites {
  /**
   * The keys of this process's requests still running (by caller and key, `slotOf`), with their
   * fingerprints.
   */
  private readonly inFlight = new Map<string, string>();

  constructor(
    private readonly db: UnitOfWork,
    private readonly keys: KeyStore,
  ) {}

  /**
   * Runs `handler` once per key. The handler runs in one unit of work (one transaction) whose
   * last statement stores its rendered answer under the key. If another request stored under
   * the key first, the unit rolls back and that answer is replayed (`Idempotent-Replayed: true`),
   * or, for another request under the key, 422. A 4xx error is stored as well (its write rolled
   * back) and rethrown; any other error stores nothing, so that a retry can succeed.
   *
   * While a request with the key runs in this process, another one is 409 at once (422 if it is
   * another request). One in another process runs its write, and its insert of the key waits
   * for the first's transaction: it rolls back and replays the first's answer.
   *
   * `handler` must start the handler when called, not before: its work joins the unit of work
   * through the async context it runs in. It is called again when the key's row turned out to be
   * expired (deleted, and the write rolled back), as the unit of work calls it again on deadlock.
   */
  async run(write: KeyedWrite, handler: () => Promise<unknown>): Promise<RenderedResponse> {
    const { fingerprint } = write;
    const slot = slotOf(write.owner);
    const other = this.inFlight.get(slot);
    if (other !== undefined) throw other === fingerprint ? running() : mismatch();
    this.inFlight.set(slot, fingerprint);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const answer = await this.once(write, handler);
        if (answer) return answer;
      }
      // The key's row was deleted under this request on every round: another is busy with it.
      throw running();
    } finally {
      this.inFlight.delete(slot);
    }
  }

  /** One round: the answer, or undefined when the key turned out free and the round is to run again. */
  private async once(
    write: KeyedWrite,
    handler: () => Promise<unknown>,
  ): Promise<RenderedResponse | undefined> {
    const { owner, fingerprint } = write;
    try {
      // Idempotent: on a cluster, a COMMIT whose answer was lost is run again on the next
      // writer; a first run that was saved holds the key, and this unit then replays it.
      return await this.db.unitOfWork(async () => {
        const result = await handler();
        const rendered = renderResult(result, write.format, write.resource, write.request);
        const response = new RenderedResponse(
          write.request.status,
          rendered.headers,
          bytesOf(rendered),
        );
        if (!(await this.keys.store(owner, fingerprint, storedOf(response)))) throw new KeyTaken();
        return response;
      }, IDEMPOTENT);
    } catch (error) {
      if (!(error instanceof KeyTaken)) {
        const failure = clientFailure(error);
        // 5xx: nothing is stored, and a retry runs again.
        if (!failure) throw error;
        const rendered = renderError(write.format, failure, write.request);
        const response = new RenderedResponse(failure.status, rendered.headers, bytesOf(rendered));
        if (await this.keys.store(owner, fingerprint, storedOf(response))) throw error;
      }
    }
    const stored = await this.keys.lookup(owner, fingerprint);
    switch (stored.kind) {
      case 'replay':
        return replayOf(stored.response);
      case 'mismatch':
        throw mismatch();
      case 'running':
        throw running();
      case 'free':
        return undefined;
    }
  }
}

/** One string per caller and key. */
function slotOf({ caller, key }: KeyOwner): string {
  return JSON.stringify([caller, key]);
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
