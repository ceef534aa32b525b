import { AsyncLocalStorage } from 'node:async_hooks';
import { ENTITY_TAG, Tagged } from '../rest/core/preconditions';
import { ResourceDefinition } from '../rest/core/resource';
import { ChangeAction, ChangeLog } from '../rest/sql/changes';
import { ApiRecord, RecordQuery, placeholders } from '../rest/sql/record-query';
import {
  Dialect,
  Row,
  RunResult,
  SqlDatabase,
  TransactionOptions,
  Tx,
} from '../rest/db/sql-database';
import { EVENT_COLUMNS } from './record-event.entity';
import { writeContext } from './request-context';

/**
 * The write side of the feed: the events of a write, added to the outbox (`record_event_outbox`)
 * in the write's transaction. Each event of a created or updated record holds the record as `show`
 * would answer right after the change, read in that transaction, and its ETag. Once the write's
 * transaction has committed, the sequencer is nudged to move them into the feed.
 */
export class ChangeRecorder implements ChangeLog {
  private readonly inTx: TxDatabase;
  private readonly queries = new Map<ResourceDefinition, RecordQuery>();
  /** `INSERT INTO record_event_outbox (...) VALUES `, quoted once. */
  private readonly insert: string;
  /** One event's row of placeholders, and the whole statement for one event (most writes). */
  private readonly row = `(${placeholders(EVENT_COLUMNS.length)})`;
  private readonly insertOne: string;

  constructor(
    private readonly db: SqlDatabase,
    /** Called once a transaction that recorded events has committed (the sequencer's nudge). */
    private readonly committed: () => void = () => undefined,
  ) {
    this.inTx = new TxDatabase(db);
    const q = (name: string) => db.quote(name);
    this.insert = `INSERT INTO ${q('record_event_outbox')} (${EVENT_COLUMNS.map(q).join(', ')}) VALUES `;
    this.insertOne = this.insert + this.row;
  }

  async recorded(
    tx: Tx,
    resource: ResourceDefinition,
    action: ChangeAction,
    ids: number[],
  ): Promise<ApiRecord[]> {
    if (ids.length === 0) return [];
    const records =
      action === 'deleted'
        ? new Map<number, ApiRecord>()
        : new Map(
            (await this.inTx.within(tx, () => this.queryOf(resource).findByIds(ids))).map((r) => [
              Number(r.id),
              r,
            ]),
          );
    const { requestId, actor } = writeContext();
    const at = Date.now();
    const values = ids.flatMap((id) => {
      const record = records.get(id);
      return [
        resource.plural,
        action,
        id,
        record ? Buffer.from(JSON.stringify(record), 'utf8') : null,
        record ? ((record as Tagged)[ENTITY_TAG] ?? null) : null,
        at,
        requestId,
        actor,
      ];
    });
    // Nothing reads its answer: it goes with the COMMIT, in the same round trip on MySQL.
    tx.withCommit(
      ids.length === 1 ? this.insertOne : this.insert + ids.map(() => this.row).join(', '),
      values,
    );
    tx.afterCommit(this.committed);
    return ids.flatMap((id) => {
      const record = records.get(id);
      return record ? [record] : [];
    });
  }

  private queryOf(resource: ResourceDefinition): RecordQuery {
    let query = this.queries.get(resource);
    if (!query) {
      query = new RecordQuery(resource, this.inTx);
      this.queries.set(resource, query);
    }
    return query;
  }
}

/**
 * The database as RecordQuery sees it, but with its reads in the transaction `within` names:
 * the record as it is after the change, before anyone else can see it.
 */
class TxDatabase extends SqlDatabase {
  readonly dialect: Dialect;
  private readonly current = new AsyncLocalStorage<Tx>();

  constructor(private readonly inner: SqlDatabase) {
    super();
    this.dialect = inner.dialect;
  }

  within<T>(tx: Tx, work: () => Promise<T>): Promise<T> {
    return this.current.run(tx, work);
  }

  quote(name: string): string {
    return this.inner.quote(name);
  }

  async query(sql: string, parameters?: unknown[]): Promise<Row[]> {
    const tx = this.current.getStore();
    return tx ? (await tx.run(sql, parameters)).rows : this.inner.query(sql, parameters);
  }

  write(sql: string, parameters?: unknown[]): Promise<RunResult> {
    return this.inner.write(sql, parameters);
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.inner.transaction(work);
  }

  unitOfWork<T>(work: () => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.inner.unitOfWork(work, options);
  }
}
