/**
 * The store behind Idempotency-Key (a write retried with its key runs once): one row per key in
 * `idempotency_keys`, in the application's own database, so every instance (and process) sees
 * the same keys.
 *
 * A request claims its key in a short transaction of its own: a row with a random claim token and
 * a lease. Its write transaction ends by storing the response on that row, guarded by the token,
 * so the write and its stored response commit together; if the lease ran out and another request
 * took the key over, the guard fails and the write rolls back. A claim left behind by a crash
 * blocks its key only until the lease ends. Stored responses expire after the TTL and are
 * deleted in small batches (`purge`).
 */
import { randomUUID } from 'node:crypto';
import { Row, SqlDatabase } from './sql-database';

/** A stored response, replayed as it was sent. */
export interface StoredResponse {
  status: number;
  contentType: string | null;
  location: string | null;
  etag: string | null;
  body: Buffer;
}

export type Claim =
  /** The key is this request's: run it, then `finish` (or `release`) with the claim. */
  | { kind: 'claimed'; claim: string }
  /** Done before with the same request: its response. */
  | { kind: 'replay'; response: StoredResponse }
  /** Used for another request. */
  | { kind: 'mismatch' }
  /** The same request is still running (here or in another instance). */
  | { kind: 'running' };

/** How long a claim holds its key before another request may take it over: past any request. */
export const CLAIM_LEASE_MS = 60_000;

/** How long a request waits for its key to be given up before it answers anyway. */
const RELEASE_WAIT_MS = 1000;

/** Rows one purge statement deletes, so that it never holds locks for long. */
const PURGE_BATCH = 500;

const TABLE = 'idempotency_keys';

/**
 * Rounds of insert-then-read a claim makes before it answers "running": a round fails only when
 * the key's row was deleted or taken over between the insert and the read.
 */
const CLAIM_ROUNDS = 5;

export class IdempotencyStore {
  private readonly table: string;
  private readonly key: string;
  private readonly insertIgnore: string;

  constructor(
    private readonly db: SqlDatabase,
    /** How long a stored response is kept, in milliseconds. */
    private readonly ttlMs: number,
    private readonly leaseMs = CLAIM_LEASE_MS,
  ) {
    this.table = db.quote(TABLE);
    this.key = db.quote('idempotency_key');
    this.insertIgnore = db.dialect === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  }

  /**
   * Claims `key` for a request with `fingerprint`, or says why it cannot run.
   *
   * The claim cannot deadlock with other claimers: the insert of the key row is the claim, in a
   * transaction of its own that holds nothing afterwards; if the key is taken (the insert changed
   * nothing), its row is read without a lock, in another transaction. A finished or running row
   * answers replay, mismatch or running; one whose lease or retention is over is taken over by
   * an update guarded by the claim read, so of many takers exactly one gets it.
   */
  async claim(key: string, fingerprint: string, now = Date.now()): Promise<Claim> {
    const claim = randomUUID();
    const expires = now + this.leaseMs;
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      // A lone statement: it commits by itself (autocommit), no transaction around it.
      const inserted = await this.db.write(
        `${this.insertIgnore} INTO ${this.table} (${this.key}, fingerprint, claim, expires_at) VALUES (?, ?, ?, ?)`,
        [key, fingerprint, claim, expires],
      );
      if (inserted.affected === 1) return { kind: 'claimed', claim };
      const row = await this.db.transaction(
        async (tx): Promise<Row | undefined> =>
          (await tx.run(`SELECT * FROM ${this.table} WHERE ${this.key} = ?`, [key])).rows[0],
      );
      // Released or purged since the insert: claim it again.
      if (!row) continue;
      if (Number(row.expires_at) <= now) {
        // Its lease or its retention is over: the key starts over for this request, unless
        // another request took it over first (then the next round reads what that one made).
        const { affected } = await this.db.transaction((tx) =>
          tx.run(
            `UPDATE ${this.table} SET fingerprint = ?, claim = ?, expires_at = ?, status = NULL,` +
              ` content_type = NULL, location = NULL, etag = NULL, body = NULL` +
              ` WHERE ${this.key} = ? AND claim = ? AND expires_at <= ?`,
            [fingerprint, claim, expires, key, row.claim, now],
          ),
        );
        if (affected === 1) return { kind: 'claimed', claim };
        continue;
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
    // The key changed hands on every round: another request is busy with it.
    return { kind: 'running' };
  }

  /**
   * Stores the response of a claimed request, kept for the TTL. Inside a unit of work it commits
   * with the request's write. False if the claim was lost (taken over after its lease).
   */
  async finish(key: string, claim: string, response: StoredResponse, now = Date.now()) {
    const { affected } = await this.db.transaction((tx) =>
      tx.run(
        `UPDATE ${this.table} SET status = ?, content_type = ?, location = ?, etag = ?, body = ?,` +
          ` expires_at = ? WHERE ${this.key} = ? AND claim = ?`,
        [
          response.status,
          response.contentType,
          response.location,
          response.etag,
          response.body,
          now + this.ttlMs,
          key,
          claim,
        ],
      ),
    );
    return affected === 1;
  }

  /**
   * Gives the key up (the request failed without an answer worth keeping: 5xx). A stored answer
   * is never given up: a write whose COMMIT went unanswered may have been saved, its answer with
   * it, and a retry must then get that answer. The caller waits RELEASE_WAIT_MS at most: a
   * database that has stopped answering does not hold back the 503 (the claim then ends with
   * its lease).
   */
  async release(key: string, claim: string): Promise<void> {
    const released = this.db.transaction((tx) =>
      tx.run(`DELETE FROM ${this.table} WHERE ${this.key} = ? AND claim = ? AND status IS NULL`, [
        key,
        claim,
      ]),
    );
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, RELEASE_WAIT_MS)));
    try {
      await Promise.race([released, waited]);
    } finally {
      clearTimeout(timer);
      released.catch(() => undefined);
    }
  }

  /**
   * Deletes expired rows, a small batch per statement (each its own short transaction), at most
   * `batches` of them. The number deleted.
   */
  async purge(now = Date.now(), batches = 20): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < batches; i++) {
      const sql =
        this.db.dialect === 'mysql'
          ? `DELETE FROM ${this.table} WHERE expires_at < ? LIMIT ${PURGE_BATCH}`
          : `DELETE FROM ${this.table} WHERE ${this.key} IN` +
            ` (SELECT ${this.key} FROM ${this.table} WHERE expires_at < ? LIMIT ${PURGE_BATCH})`;
      const { affected } = await this.db.transaction((tx) => tx.run(sql, [now]));
      deleted += affected;
      if (affected < PURGE_BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return deleted;
  }
}
