import { RecordError } from '../../../../src/rest/core/errors';
import { tag } from '../../../../src/rest/core/preconditions';
import { RenderRequest, RenderedResponse } from '../../../../src/rest/core/render';
import type { Claim, StoredResponse } from '../../../../src/rest/sql/idempotency';
import { ApiError } from '../../../../src/rest/http/api-error';
import {
  IdempotentWrites,
  KeyStore,
  KeyedWrite,
  LostClaim,
  UnitOfWork,
} from '../../../../src/rest/http/idempotent-write';

/** An in-memory store with the claim/finish/release protocol of IdempotencyStore. */
class FakeKeys implements KeyStore {
  readonly rows = new Map<
    string,
    { fingerprint: string; claim: string; response?: StoredResponse }
  >();
  private claims = 0;
  /** Set to take the next claim's key over before its request finishes. */
  takeOver = false;

  claim(key: string, fingerprint: string): Promise<Claim> {
    const row = this.rows.get(key);
    if (!row) {
      const claim = `claim-${++this.claims}`;
      this.rows.set(key, { fingerprint, claim });
      return Promise.resolve({ kind: 'claimed', claim });
    }
    if (row.fingerprint !== fingerprint) return Promise.resolve({ kind: 'mismatch' });
    if (!row.response) return Promise.resolve({ kind: 'running' });
    return Promise.resolve({ kind: 'replay', response: row.response });
  }

  finish(key: string, claim: string, response: StoredResponse): Promise<boolean> {
    const row = this.rows.get(key);
    if (this.takeOver && row) row.claim = 'someone else';
    if (!row || row.claim !== claim) return Promise.resolve(false);
    row.response = response;
    return Promise.resolve(true);
  }

  release(key: string, claim: string): Promise<void> {
    if (this.rows.get(key)?.claim === claim) this.rows.delete(key);
    return Promise.resolve();
  }
}

/** A unit of work that records whether the handler ran inside it. */
class FakeDb implements UnitOfWork {
  depth = 0;
  units = 0;
  async unitOfWork<T>(work: () => Promise<T>): Promise<T> {
    this.units++;
    this.depth++;
    try {
      return await work();
    } finally {
      this.depth--;
    }
  }
}

const request = (method: string, status: number): RenderRequest => ({
  method,
  status,
  url: () => ({ base: 'http://example.test/api/demo/widgets', query: '' }),
  pathUrl: () => 'http://example.test/api/demo/widgets',
  allowedMethods: () => ['GET', 'POST'],
});

const write = (overrides: Partial<KeyedWrite> = {}): KeyedWrite => ({
  key: 'k-1',
  fingerprint: 'POST /widgets json',
  format: 'json',
  resource: undefined,
  request: request('POST', 201),
  ...overrides,
});

const JSON_TYPE = 'application/json; charset=utf-8';

describe('IdempotentWrites', () => {
  let keys: FakeKeys;
  let db: FakeDb;
  let writes: IdempotentWrites;
  beforeEach(() => {
    keys = new FakeKeys();
    db = new FakeDb();
    writes = new IdempotentWrites(db, keys);
  });

  it('should run the handler inside the unit of work and store its rendered answer', async () => {
    let inside = false;
    const response = await writes.run(write(), () => {
      inside = db.depth === 1;
      return Promise.resolve(tag({ id: 9, name: 'Cog' }, '"9.1"'));
    });
    expect(inside).toBe(true);
    expect(response).toBeInstanceOf(RenderedResponse);
    expect(response.status).toBe(201);
    expect(response.headers).toEqual({
      Location: 'http://example.test/api/demo/widgets/9',
      ETag: '"9.1"',
      'Content-Type': JSON_TYPE,
    });
    expect(response.body.toString()).toBe('{"id":9,"name":"Cog"}');
    expect(keys.rows.get('k-1')!.response).toEqual({
      status: 201,
      contentType: JSON_TYPE,
      location: 'http://example.test/api/demo/widgets/9',
      etag: '"9.1"',
      body: Buffer.from('{"id":9,"name":"Cog"}'),
    });
  });

  it('should replay a stored answer without running the handler, marked as replayed', async () => {
    await writes.run(write(), () => Promise.resolve(tag({ id: 9, name: 'Cog' }, '"9.1"')));
    const handler = jest.fn();
    const replay = await writes.run(write(), handler);
    expect(handler).not.toHaveBeenCalled();
    expect(db.units).toBe(1);
    expect(replay.status).toBe(201);
    expect(replay.headers).toEqual({
      'Content-Type': JSON_TYPE,
      Location: 'http://example.test/api/demo/widgets/9',
      ETag: '"9.1"',
      'Idempotent-Replayed': 'true',
    });
    expect(replay.body.toString()).toBe('{"id":9,"name":"Cog"}');
  });

  it('should store an empty answer (204) with no Content-Type', async () => {
    const response = await writes.run(write({ request: request('DELETE', 204) }), () =>
      Promise.resolve(undefined),
    );
    expect(response.headers).toEqual({});
    expect(response.body.length).toBe(0);
    const replay = await writes.run(write({ request: request('DELETE', 204) }), jest.fn());
    expect(replay.status).toBe(204);
    expect(replay.headers).toEqual({ 'Idempotent-Replayed': 'true' });
  });

  it('should refuse a key used for another request with 422', async () => {
    await writes.run(write(), () => Promise.resolve({ id: 1 }));
    const handler = jest.fn();
    const refused = writes.run(write({ fingerprint: 'POST /widgets xml' }), handler);
    await expect(refused).rejects.toThrow(ApiError);
    await expect(refused).rejects.toMatchObject({
      status: 422,
      message:
        'This Idempotency-Key was used for another request (method, path, format or body); use a new key.',
    });
    expect(handler).not.toHaveBeenCalled();
  });

  it('should answer 409 with Retry-After while the same request still runs', async () => {
    keys.rows.set('k-1', { fingerprint: 'POST /widgets json', claim: 'other' });
    const running = writes.run(write(), jest.fn());
    await expect(running).rejects.toMatchObject({
      status: 409,
      headers: { 'Retry-After': '1' },
      message:
        'A request with this Idempotency-Key is still in progress; retry shortly to get its response.',
    });
  });

  it('should store a 4xx answer in the format and rethrow the error', async () => {
    const error = RecordError.invalid('Validation failed.', { name: ['is required.'] });
    await expect(writes.run(write({ format: 'xml' }), () => Promise.reject(error))).rejects.toBe(
      error,
    );
    expect(keys.rows.get('k-1')!.response).toEqual({
      status: 400,
      contentType: 'application/xml; charset=utf-8',
      location: null,
      etag: null,
      body: Buffer.from(
        '<?xml version="1.0" encoding="UTF-8"?>\n' +
          '<hash><message>Validation failed.</message>' +
          '<errors><name type="array"><name>is required.</name></name></errors></hash>\n',
      ),
    });
    const replay = await writes.run(write({ format: 'xml' }), jest.fn());
    expect(replay.status).toBe(400);
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
  });

  it('should give the key up on any other error, so that a retry runs', async () => {
    const failure = new Error('connection lost');
    await expect(writes.run(write(), () => Promise.reject(failure))).rejects.toBe(failure);
    expect(keys.rows.has('k-1')).toBe(false);
    const retried = await writes.run(write(), () => Promise.resolve({ id: 3 }));
    expect(retried.status).toBe(201);
  });

  it('should answer 409 and store nothing when the claim was taken over', async () => {
    keys.takeOver = true;
    const lost = writes.run(write(), () => Promise.resolve({ id: 3 }));
    await expect(lost).rejects.toBeInstanceOf(LostClaim);
    await expect(lost).rejects.toMatchObject({ status: 409 });
    expect(keys.rows.get('k-1')).toEqual({
      fingerprint: 'POST /widgets json',
      claim: 'someone else',
    });
  });
});
