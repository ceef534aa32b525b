/**
 * The store behind Idempotency-Key (a write retried with its key runs once): one row per caller
 * and key in `idempotency_keys`, in the application's own database, so every instance (and
 * process) sees the same keys. A key belongs to the caller that sent it (`KeyOwner`): another
 * caller's same key is another row, never a replay of someone else's answer.
 *
 * A key's row is written once, finished: the last statement of the write's own transaction
 * inserts it with the response, so the write and its stored response commit together, and a
 * write that fails or whose process dies leaves no row behind. The key's primary key is what
 * makes a write run once: of two transactions with one key, the second's insert waits for the
 * first to end and fails if it committed, and that transaction rolls back (`store` says false).
 * Stored responses expire after the TTL and are deleted in small batches (`purge`).
 */
import { errorCode } from '../db/database-errors';
import { batchWithin, Row, SqlDatabase } from '../db/sql-database';

/** A caller's key: who sent it (`callerOf`, in the HTTP layer) and the key. */
export interface KeyOwner {
  /** `sub:<the token's sub>`, `api-token`, or empty for a request without credentials. */
  caller: string;
  key: string;
}

/** A stored response, replayed as it was sent. */
export interface StoredResponse {
  status: number;
  contentType: string | null;
  location: string | null;
  etag: string | null;
  body: Buffer;
}

/** What a key's row says to a request that could not store its answer under the key. */
export type Stored =
  /** Done before with the same request: its response. */
  | { kind: 'replay'; response: StoredResponse }
  /** Used for another request. */
  | { kind: 'mismatch' }
  /**
   * The same request is still running: a row without a response, which only earlier versions
   * of the service write (their claim of a key before its write).
   */
  | { kind: 'running' }
  /** No row any more (its retention was over, and it is deleted now): the key is free. */
  | { kind: 'free' };

/** Rows one purge statement deletes, so that it never holds locks for long. */
const PURGE_BATCH = 500;

const TABLE = 'idempotency_keys';

/** The driver's codes for an insert refused by the key's primary key. */
const TAKEN = new Set(['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

export class IdempotencyStore {
  private readonly table: string;
  private readonly key: string;
  private readonly caller: string;

  constructor(
    private readonly db: SqlDatabase,
    /** How long a stored response is kept, in milliseconds. */
    private readonly ttlMs: number,
  ) {
    this.table = db.quote(TABLE);
    this.key = db.quote('idempotency_key');
    this.caller = db.quote('caller');
  }

  /**
   * Stores the response of the request with `owner`'s key and `fingerprint`, kept for the TTL: inside a
   * unit of work as its last statement, it commits with the request's write; outside one, in a
   * transaction of its own. False when the key has a row already (committed by another request;
   * one not yet committed is waited for): nothing is stored, and the caller rolls its unit back.
   */
  async store(
    { caller, key }: KeyOwner,
    fingerprint: string,
    response: StoredResponse,
    now = Date.now(),
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      try {
        await tx.run(
          `INSERT INTO ${this.table} (${this.caller}, ${this.key}, fingerprint, claim, status,` +
            ` content_type, location, etag, body, expires_at) VALUES (?, ?, ?, '', ?, ?, ?, ?, ?, ?)`,
          [
            caller,
            key,
            fingerprint,
            response.status,
            response.contentType,
            response.location,
            response.etag,
            response.body,
            now + this.ttlMs,
          ],
        );
        return true;
      } catch (error) {
        // Caught here, not thrown: the unit of work would retry a duplicate key from the start.
        if (TAKEN.has(errorCode(error))) return false;
        throw error;
      }
    });
  }

  /**
   * What the row of `owner`'s key says to a request with `fingerprint` that could not store
   * under it.
   * A row whose retention is over is deleted (unless another request has replaced it since), and
   * the key is free again.
   */
  async lookup({ caller, key }: KeyOwner, fingerprint: string, now = Date.now()): Promise<Stored> {
    const row = await this.db.transaction(
      async (tx): Promise<Row | undefined> =>
        (
          await tx.run(`SELECT * FROM ${this.table} WHERE ${this.caller} = ? AND ${this.key} = ?`, [
            caller,
            key,
          ])
        ).rows[0],
    );
    if (!row) return { kind: 'free' };
    if (Number(row.expires_at) <= now) {
      await this.db.write(
        `DELETE FROM ${this.table} WHERE ${this.caller} = ? AND ${this.key} = ? AND expires_at <= ?`,
        [caller, key, now],
      );
      return { kind: 'free' };
    }
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.status === null || row.status === undefined) return { kind: 'running' };
    return {
      kind: 'replay',
      response: {
        status: Number(row.status),
        contentType: (row.content_type as string | null) ?? null,
        location: (row.location as string | null) ?? null,
        etag: (row.etag as string | null) ?? null,
        body: Buffer.isBuffer(row.body) ? row.body : Buffer.from((row.body as string) ?? ''),
      },
    };
  }

  /**
   * Deletes expired rows, a small batch per statement (each its own short transaction), at most
   * `batches` of them. The number deleted.
   */
  async purge(now = Date.now(), batches = 20): Promise<number> {
    let deleted = 0;
    // Fewer where a Galera cluster's write-sets hold fewer rows.
    const batch = batchWithin(this.db, PURGE_BATCH);
    for (let i = 0; i < batches; i++) {
      const sql =
        this.db.dialect === 'mysql'
          ? `DELETE FROM ${this.table} WHERE expires_at < ? LIMIT ${batch}`
          : `DELETE FROM ${this.table} WHERE rowid IN` +
            ` (SELECT rowid FROM ${this.table} WHERE expires_at < ? LIMIT ${batch})`;
      const { affected } = await this.db.transaction((tx) => tx.run(sql, [now]));
      deleted += affected;
      if (affected < batch) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return deleted;
  }
}
