import { RecordError } from '../../../../src/rest/core/errors';
import { tag } from '../../../../src/rest/core/preconditions';
import { RenderRequest, RenderedResponse } from '../../../../src/rest/core/output/render';
import type { KeyOwner, Stored, StoredResponse } from '../../../../src/rest/sql/idempotency-store';
import { ApiError } from '../../../../src/rest/http/response/api-error';
import {
  IdempotentWrites,
  KeyStore,
  KeyedWrite,
  UnitOfWork,
} from '../../../../src/rest/http/safe-writes/idempotent-write';

interface FakeRow {
  fingerprint: string;
  response?: StoredResponse;
  expired?: boolean;
}

/** A row's key in FakeKeys: the key alone for the anonymous caller, `caller/key` otherwise. */
const slot = ({ caller, key }: KeyOwner) => (caller ? `${caller}/${key}` : key);

/** An in-memory store with the store/lookup protocol of IdempotencyStore. */
class FakeKeys implements KeyStore {
  readonly rows = new Map<string, FakeRow>();
  /** Set to have another request store under the key while the next handler runs. */
  before?: (key: string) => void;

  store(owner: KeyOwner, fingerprint: string, response: StoredResponse): Promise<boolean> {
    const key = slot(owner);
    if (this.rows.has(key)) return Promise.resolve(false);
    this.rows.set(key, { fingerprint, response });
    return Promise.resolve(true);
  }

  lookup(owner: KeyOwner, fingerprint: string): Promise<Stored> {
    const key = slot(owner);
    const row = this.rows.get(key);
    if (!row || row.expired) {
      this.rows.delete(key);
      return Promise.resolve({ kind: 'free' });
    }
    if (row.fingerprint !== fingerprint) return Promise.resolve({ kind: 'mismatch' });
    if (!row.response) return Promise.resolve({ kind: 'running' });
    return Promise.resolve({ kind: 'replay', response: row.response });
  }
}

/** A unit of work that records whether the handler ran inside it, and what it rolled back. */
class FakeDb implements UnitOfWork {
  depth = 0;
  units = 0;
  rolledBack = 0;
  /** The options of each unit of work. */
  options: unknown[] = [];
  async unitOfWork<T>(work: () => Promise<T>, options?: unknown): Promise<T> {
    this.units++;
    this.options.push(options);
    this.depth++;
    try {
      return await work();
    } catch (error) {
      this.rolledBack++;
      throw error;
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
  owner: { caller: '', key: 'k-1' },
  fingerprint: 'POST /widgets json',
  format: 'json',
  resource: undefined,
  request: request('POST', 201),
  ...overrides,
});

const JSON_TYPE = 'application/json; charset=utf-8';
const RUNNING =
  'A request with this Idempotency-Key is still in progress; retry shortly to get its response.';
const MISMATCH =
  'This Idempotency-Key was used for another request (method, path, format or body); use a new key.';

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

  it('should run its unit of work as idempotent, so that a cluster may run it again after a lost COMMIT', async () => {
    await writes.run(write(), () => Promise.resolve(tag({ id: 9, name: 'Cog' }, '"9.1"')));
    expect(db.options).toEqual([{ idempotent: true }]);
  });

  it('should replay a stored answer, marked as replayed, and roll back the write that found it', async () => {
    await writes.run(write(), () => Promise.resolve(tag({ id: 9, name: 'Cog' }, '"9.1"')));
    const handler = jest.fn(() => Promise.resolve(tag({ id: 10, name: 'Cog' }, '"10.1"')));
    const replay = await writes.run(write(), handler);
    expect([handler.mock.calls.length, db.units, db.rolledBack]).toEqual([1, 2, 1]);
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
    const replay = await writes.run(write({ request: request('DELETE', 204) }), () =>
      Promise.reject(RecordError.notFound('Widget', 9)),
    );
    expect(replay.status).toBe(204);
    expect(replay.headers).toEqual({ 'Idempotent-Replayed': 'true' });
  });

  it('should refuse a key used for another request with 422', async () => {
    await writes.run(write(), () => Promise.resolve({ id: 1 }));
    const refused = writes.run(write({ fingerprint: 'POST /widgets xml' }), () =>
      Promise.resolve({ id: 2 }),
    );
    await expect(refused).rejects.toThrow(ApiError);
    await expect(refused).rejects.toMatchObject({ status: 422, message: MISMATCH });
    expect(db.rolledBack).toBe(1);
    expect(keys.rows.get('k-1')!.response!.body.toString()).toBe('{"id":1}');
  });

  it('should answer 409 with Retry-After at once while the same request runs in this process, 422 for another', async () => {
    let finish!: (value: unknown) => void;
    const first = writes.run(write(), () => new Promise((resolve) => (finish = resolve)));
    const handler = jest.fn();
    const second = writes.run(write(), handler);
    await expect(second).rejects.toMatchObject({
      status: 409,
      headers: { 'Retry-After': '1' },
      message: RUNNING,
    });
    const other = writes.run(write({ fingerprint: 'POST /widgets xml' }), handler);
    await expect(other).rejects.toMatchObject({ status: 422, message: MISMATCH });
    expect(handler).not.toHaveBeenCalled();
    finish({ id: 4 });
    expect((await first).status).toBe(201);
    const replay = await writes.run(write(), () => Promise.resolve({ id: 5 }));
    expect(replay.body.toString()).toBe('{"id":4}');
  });

  it("should run another caller's same key as a request of its own, even while the first runs", async () => {
    let finish!: (value: unknown) => void;
    const first = writes.run(write(), () => new Promise((resolve) => (finish = resolve)));
    const bot = { caller: 'sub:marbles-bot', key: 'k-1' };
    const theirs = await writes.run(write({ owner: bot }), () => Promise.resolve({ id: 8 }));
    expect([theirs.status, theirs.headers['Idempotent-Replayed']]).toEqual([201, undefined]);
    finish({ id: 7 });
    expect((await first).body.toString()).toBe('{"id":7}');
    const token = { caller: 'api-token', key: 'k-1' };
    const another = await writes.run(write({ owner: token }), () => Promise.resolve({ id: 9 }));
    expect(another.body.toString()).toBe('{"id":9}');
    const replay = await writes.run(write({ owner: bot }), jest.fn());
    expect([replay.headers['Idempotent-Replayed'], replay.body.toString()]).toEqual([
      'true',
      '{"id":8}',
    ]);
    expect([...keys.rows.keys()]).toEqual(['sub:marbles-bot/k-1', 'k-1', 'api-token/k-1']);
  });

  it("should answer 409 to a key an earlier version's request still holds (a row without a response)", async () => {
    keys.rows.set('k-1', { fingerprint: 'POST /widgets json' });
    const running = writes.run(write(), () => Promise.resolve({ id: 3 }));
    await expect(running).rejects.toMatchObject({ status: 409, message: RUNNING });
    expect(db.rolledBack).toBe(1);
  });

  it('should roll back and replay when another process stored under the key during the write', async () => {
    const theirs = { status: 201, contentType: JSON_TYPE, location: null, etag: null };
    const replay = await writes.run(write(), () => {
      keys.rows.set('k-1', {
        fingerprint: 'POST /widgets json',
        response: { ...theirs, body: Buffer.from('{"id":1}') },
      });
      return Promise.resolve({ id: 2 });
    });
    expect([db.rolledBack, replay.headers['Idempotent-Replayed']]).toEqual([1, 'true']);
    expect(replay.body.toString()).toBe('{"id":1}');
  });

  it('should run the write again when the key it found had expired', async () => {
    keys.rows.set('k-1', { fingerprint: 'POST /widgets json', expired: true });
    let calls = 0;
    const response = await writes.run(write(), () => Promise.resolve({ id: ++calls }));
    expect([response.status, response.headers['Idempotent-Replayed']]).toEqual([201, undefined]);
    expect(response.body.toString()).toBe('{"id":2}');
    expect([calls, db.units, db.rolledBack]).toEqual([2, 2, 1]);
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

  it('should store nothing on any other error, so that a retry runs', async () => {
    const failure = new Error('connection lost');
    await expect(writes.run(write(), () => Promise.reject(failure))).rejects.toBe(failure);
    expect(keys.rows.has('k-1')).toBe(false);
    const retried = await writes.run(write(), () => Promise.resolve({ id: 3 }));
    expect(retried.status).toBe(201);
  });
});
