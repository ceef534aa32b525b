/**
 * Every write of a collection, driven by its declaration: create, update and destroy of one record,
 * the all-or-nothing bulk forms, and changes of one record computed from its stored values (the
 * marble actions). Each request is one transaction: validation, existence and uniqueness checks,
 * the writes and the declared rules commit together or not at all. Failures are RecordErrors; the
 * HTTP layer picks their status.
 *
 * Longer than 500 lines: one class whose writes share their locking, version and checking steps;
 * split in two, each half would reach into the other's private steps.
 */
import { FieldErrors, RecordError } from '../core/errors';
import { CollectionField, ScalarField } from '../core/fields';
import { InputMode, InputReader, Values } from '../core/input/input';
import { toDatabaseTimestamp } from '../core/list-query';
import { singular, withArticle, words } from '../core/names';
import {
  Precondition,
  entityTag,
  meets,
  preconditionFailure,
  versionsNamed,
} from '../core/preconditions';
import { Message } from '../core/output/render';
import { ResourceDefinition, scalarFields } from '../core/resource';
import { INT_MAX, isPlainObject, recordId } from '../core/values';
import { ChangeAction, changeLogOf } from './changes';
import { errorCode } from '../db/database-errors';
import { Row, SqlDatabase, Tx } from '../db/sql-database';
import { ApiRecord, RecordQuery, placeholders, readerFor } from './record-query';

/** Most items in one bulk request. */
export const BULK_LIMIT = 1000;

interface Item {
  values: Values;
  /** What the body check found; the database checks add to it. */
  errors?: FieldErrors;
  /** Unknown fields the body check counted without naming them (InputResult). */
  unlisted?: number;
  current?: Row;
}

export class RecordWriter {
  private readonly input: InputReader;
  private readonly scalars: ScalarField[];
  private readonly uniques: ScalarField[];
  private readonly references: ScalarField[];
  private readonly exclusive: ScalarField[];
  private readonly relations: CollectionField[];
  /** The columns of the timestamps set on create and on every write (`setOn`), if any. */
  private readonly stamped: { created?: string; updated?: string };
  private readonly plural: string;
  private readonly noun: string;
  /** See `idStep`: MySQL's, once asked. */
  private mysqlIdStep?: number;
  /**
   * The rows each transaction inserted one at a time: when a later item of a bulk create is
   * refused, the earlier ones are still in the transaction, and the uniqueness check must not
   * take them for stored records (one INSERT per item: MySQL's interleaved auto-increment lock
   * mode, which a Galera cluster requires, and collections with relations or exclusive flags).
   */
  private readonly insertedBy = new WeakMap<Tx, Set<number>>();
  /** Stored row → values by field name, for `change`. */
  private readonly decode: (row: Row) => Values;
  /**
   * By transaction, the records whose exclusive flag a write of it cleared (`takeExclusiveFlags`):
   * changed too, so `changed` records their events beside the write's own.
   */
  private readonly cleared = new WeakMap<Tx, Set<number>>();

  constructor(
    private readonly resource: ResourceDefinition,
    private readonly db: SqlDatabase,
    private readonly records: RecordQuery,
  ) {
    this.input = new InputReader(resource);
    this.scalars = scalarFields(resource);
    this.uniques = this.scalars.filter((f) => f.write && f.unique);
    this.references = this.scalars.filter((f) => f.write && f.references);
    this.exclusive = this.scalars.filter((f) => f.write?.exclusiveWithin);
    this.relations = resource.fields.filter(
      (f): f is CollectionField => f.kind === 'collection' && !!f.writeAs,
    );
    const setOn = (when: 'create' | 'write') => this.scalars.find((f) => f.setOn === when)?.column;
    this.stamped = { created: setOn('create'), updated: setOn('write') };
    this.plural = words(resource.plural);
    this.noun = words(resource.singular);
    const readers = this.scalars.map((f) => ({ key: f.name, read: readerFor(f.type, f.column) }));
    this.decode = (row) => Object.fromEntries(readers.map((r) => [r.key, r.read(row)]));
  }

  async create(body: unknown): Promise<ApiRecord> {
    const item = await this.readOne(body, 'create');
    return this.answered(async (tx) => {
      await this.checkInvalid(tx, [item]);
      const id = await this.guarded(tx, [item], () => this.insert(tx, item.values));
      return (await this.changedRecords(tx, 'created', [id]))[0];
    });
  }

  /** A partial update; with `condition` (If-Match), only of the version it names, else 412. */
  async update(id: number, body: unknown, condition?: Precondition): Promise<ApiRecord> {
    const item = await this.readOne(body, 'update');
    if (!item.errors && !this.relations.length && !this.exclusive.length) {
      // Nothing to read first: the UPDATE itself checks the version and moves updated_at. (An
      // invalid body takes the long way: "not found" comes before its 400.)
      return this.answered(async (tx) => {
        const work = [{ ...item, current: { id } }];
        await this.checkInvalid(tx, work);
        await this.guarded(tx, work, () => this.saveGuarded(tx, id, item.values, condition));
        return (await this.changedRecords(tx, 'updated', [id]))[0];
      });
    }
    return this.answered(async (tx) => {
      const current = await this.lockOne(tx, id, condition);
      const work = [{ ...item, current }];
      await this.checkInvalid(tx, work);
      await this.guarded(tx, work, () => this.save(tx, item.values, current));
      return (await this.changedRecords(tx, 'updated', [id]))[0];
    });
  }

  async destroy(id: number, condition?: Precondition): Promise<void> {
    if (condition === undefined) {
      const affected = await this.db.transaction(async (tx) => {
        const removed = await this.remove(tx, [id]);
        if (removed === 1) await this.changed(tx, 'deleted', [id]);
        return removed;
      });
      if (affected === 0) throw RecordError.notFound(this.resource.label, id);
      return;
    }
    // Guarded by the version in the statement itself, no lock first: only when nothing was
    // deleted is the row looked up, to tell "not found" from "precondition failed".
    const versions = condition === '*' ? undefined : versionsNamed(condition, id);
    await this.db.transaction(async (tx) => {
      if (versions === undefined) {
        if ((await this.remove(tx, [id])) === 1) return this.changed(tx, 'deleted', [id]);
      } else if (versions.length > 0) {
        const { affected } = await tx.run(
          `DELETE FROM ${this.q(this.resource.table)} WHERE ${this.q('id')} = ?` +
            ` AND ${this.q('version')} IN (${placeholders(versions.length)})`,
          [id, ...versions],
        );
        if (affected === 1) return this.changed(tx, 'deleted', [id]);
      }
      throw await this.missedGuard(tx, id, condition);
    });
  }

  /** One record from an object; several (bulk create, where the collection has it) from an array. */
  createAny(body: unknown): Promise<ApiRecord | Message<ApiRecord>> {
    if (!Array.isArray(body)) return this.create(body);
    if (!this.resource.bulk) {
      throw RecordError.invalid(
        `Request body must be a ${this.resource.singular} object; ${this.resource.plural} have no bulk create.`,
      );
    }
    return this.bulkCreate(body);
  }

  async bulkCreate(body: unknown): Promise<Message<ApiRecord>> {
    const items = this.bulkItems(body, 'Bulk create requires an array of objects as input.');
    const work = await this.readMany(items, 'create');
    this.fitWriteSet('create', work);
    return this.answered(async (tx) => {
      await this.checkInvalid(tx, work, true);
      const ids = await this.guarded(tx, work, () => this.insertAll(tx, work), true);
      return new Message('Bulk create successful.', await this.changedRecords(tx, 'created', ids));
    });
  }

  async updateAll(body: unknown): Promise<Message<ApiRecord>> {
    const shape = 'Bulk update requires an array of objects, each with the id of a record.';
    const items = this.bulkItems(body, shape);
    const ids = items.map((item) => recordId(item.id));
    const problems = idProblems(items, ids);
    if (problems.length > 0) {
      throw RecordError.invalid(
        `${shape} Ids must be positive integers, each once: ${problems.join('; ')}.`,
      );
    }
    const read = await this.readMany(items, 'update');
    this.fitWriteSet('update', read);
    return this.answered(async (tx) => {
      const rows = await this.lock(tx, ids as number[]);
      this.requireAll(ids as number[], rows, 'nothing was changed');
      const byId = new Map(rows.map((r) => [Number(r.id), r]));
      const work = read.map((item, i) => ({ ...item, current: byId.get(ids[i]!)! }));
      await this.checkInvalid(tx, work, true);
      await this.guarded(
        tx,
        work,
        async () => {
          for (const item of work) await this.save(tx, item.values, item.current, byId);
        },
        true,
      );
      return new Message(
        'Bulk update successful.',
        await this.changedRecords(tx, 'updated', ids as number[]),
      );
    });
  }

  async destroyAll(body: unknown): Promise<Message<ApiRecord>> {
    const shape = 'Bulk destroy requires an array of primary keys as input.';
    const items = bulkArray(body, shape);
    const ids = items.map(recordId);
    const strays = ids.flatMap((id, index) =>
      id === undefined ? [`item ${index + 1} is ${shown(items[index])}`] : [],
    );
    if (strays.length > 0) {
      throw RecordError.invalid(`${shape} Ids must be positive integers: ${strays.join('; ')}.`);
    }
    const unique = [...new Set(ids as number[])];
    this.fitWriteSet(
      'destroy',
      unique.map(() => ({ values: {} })),
    );
    const doomed = await this.records.findByIds(unique);
    await this.db.transaction(async (tx) => {
      this.requireAll(unique, doomed, 'nothing was deleted');
      const affected = await this.remove(tx, unique);
      // A record deleted by someone else since it was read: delete none.
      if (affected !== unique.length) {
        throw RecordError.invalid(`Some ${this.plural} no longer exist; nothing was deleted.`);
      }
      await this.changed(tx, 'deleted', unique);
    });
    return new Message('Bulk destroy successful.', doomed);
  }

  /**
   * One record changed by `compute` from its stored values, atomically: the row is locked, the
   * change computed and written in one transaction, so N concurrent changes apply N times and
   * each sees its own result. `compute` returns the fields to write (already valid); the answer
   * is the record's values after the change, and its new entity tag. With `condition`
   * (If-Match), only the version it names is changed, else 412.
   */
  async change(
    id: number,
    compute: (current: Values) => Values,
    condition?: Precondition,
  ): Promise<{ values: Values; tag: string }> {
    return this.db.transaction(async (tx) => {
      const current = await this.lockOne(tx, id, condition);
      const values = compute(this.decode(current));
      await this.save(tx, values, current);
      await this.changed(tx, 'updated', [id]);
      return {
        values: { ...this.decode(current), ...values },
        tag: entityTag(id, Number(current.version) + 1),
      };
    });
  }

  /**
   * A bulk write's rows against the database cluster's row limit (`wsrep_max_ws_rows`, where it
   * has one), before anything is written: each item costs its record's row, its change-feed event
   * (with the feed on), for each exclusive flag the row it may clear and that row's event, and a
   * row per id a relation names; the request one more, its Idempotency-Key's. Over the limit: 413
   * naming it, and how many items fit (the cluster's limit is then smaller than BULK_LIMIT). A
   * relation's rows that an update deletes are not counted: should they pass the limit, the
   * cluster refuses the transaction and the answer is the same 413 (failures.ts).
   */
  private fitWriteSet(action: 'create' | 'update' | 'destroy', items: Item[]): void {
    const limit = this.db.writeSetLimits?.()?.rows ?? 0;
    if (limit === 0) return;
    const events = changeLogOf(this.db) ? 1 : 0;
    const each = (1 + events) * (1 + this.exclusive.length);
    const linked = (item: Item) =>
      this.relations.reduce((sum, r) => sum + idsOf(item.values[r.writeAs!]).length, 0);
    const rows = 1 + items.reduce((sum, item) => sum + each + linked(item), 0);
    if (rows <= limit) return;
    const fit = Math.max(0, Math.floor((limit - 1) / each));
    throw new RecordError(
      'too-large',
      `Bulk ${action} of ${items.length} ${this.plural} writes ${rows} rows in one transaction, ` +
        `more than this database cluster accepts (wsrep_max_ws_rows = ${limit}): send at most ` +
        `${Math.min(fit, BULK_LIMIT)} at a time${this.relations.length ? ', fewer with related ids' : ''}. Nothing was saved.`,
    );
  }

  /**
   * `work` in one transaction whose reads (RecordQuery's, through the port) join it: the record
   * is read back before COMMIT, so a write that committed is answered as written, and a read that
   * fails rolls the write back. No statement more than a read after COMMIT would take.
   */
  private answered<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.unitOfWork(() =>
      this.db.transaction((tx) => {
        // The rows inserted by this write alone: a unit of work holding several writes (atomic
        // operations) shares one transaction, and an earlier write's rows are stored records to
        // this one's checks (a name the request's first create took is taken for its second).
        this.insertedBy.delete(tx);
        return work(tx);
      }),
    );
  }

  /**
   * Tells the change feed of the records this write changed, in its transaction (changes.ts):
   * first those whose exclusive flag it cleared (`updated`, unless the write names them itself),
   * then its own. Returns its own records as the feed read them for their events (in the order of
   * `ids`; none for `deleted`), or undefined with the feed off.
   */
  private async changed(
    tx: Tx,
    action: ChangeAction,
    ids: number[],
  ): Promise<ApiRecord[] | undefined> {
    const log = changeLogOf(this.db);
    const cleared = this.cleared.get(tx);
    this.cleared.delete(tx);
    if (!log) return undefined;
    if (cleared) {
      const own = new Set(ids);
      const others = [...cleared].filter((id) => !own.has(id));
      await log.recorded(tx, this.resource, 'updated', others);
    }
    return log.recorded(tx, this.resource, action, ids);
  }

  /**
   * `changed`, and the records the answer gives, read once for both: those the feed read for the
   * events, or, with the feed off, read here (in the transaction: only within `answered`).
   */
  private async changedRecords(
    tx: Tx,
    action: 'created' | 'updated',
    ids: number[],
  ): Promise<ApiRecord[]> {
    return (await this.changed(tx, action, ids)) ?? this.records.findByIds(ids);
  }

  private async readOne(body: unknown, mode: InputMode): Promise<Item> {
    const record = this.input.unwrap(body);
    if (!isPlainObject(record)) {
      throw RecordError.invalid(
        `Request body must be ${withArticle(this.noun).toLowerCase()} object.`,
      );
    }
    return this.input.read(record, mode);
  }

  private bulkItems(body: unknown, shape: string): Record<string, unknown>[] {
    const items = bulkArray(body, shape).map((item) => this.input.unwrap(item));
    const stray = items.findIndex((item) => !isPlainObject(item));
    if (stray !== -1) {
      throw RecordError.invalid(`${shape} Item ${stray + 1} is not an object.`);
    }
    return items as Record<string, unknown>[];
  }

  private readMany(items: Record<string, unknown>[], mode: InputMode): Promise<Item[]> {
    return Promise.all(items.map((item) => this.input.read(item, mode)));
  }

  /**
   * Where the body check rejected an item: every check, so that the answer names every problem
   * at once (400). A valid body needs no lookup before its write: the database's unique indexes
   * and foreign keys refuse what the lookups would, and `guarded` words their refusal.
   */
  private async checkInvalid(tx: Tx, items: Item[], bulk = false): Promise<void> {
    if (!items.some((item) => item.errors)) return;
    throwErrors(await this.check(tx, items), bulk, unlistedIn(items));
  }

  /**
   * `write`, whose refusal by a unique index or a foreign key becomes the 400 the checks word
   * (run then, in the same transaction: the failed statement alone was undone). If the checks
   * find nothing (the conflicting row is gone again), the error stands and the transaction is
   * retried.
   */
  private async guarded<T>(
    tx: Tx,
    items: Item[],
    write: () => Promise<T>,
    bulk = false,
  ): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!CONSTRAINT_FAILURES.has(errorCode(error))) throw error;
      throwErrors(await this.check(tx, items), bulk, unlistedIn(items));
      throw error;
    }
  }

  /**
   * The stored row, locked until the transaction ends, or "not found"; "precondition failed"
   * when it is not the version `condition` names.
   */
  private async lockOne(tx: Tx, id: number, condition?: Precondition): Promise<Row> {
    const [current] = await this.lock(tx, [id]);
    if (!current) throw RecordError.notFound(this.resource.label, id);
    if (!meets(condition, entityTag(id, current.version))) {
      throw preconditionFailure(this.resource.label, id, Number(current.version), condition!);
    }
    return current;
  }

  /** The stored rows, locked until the transaction ends. */
  private async lock(tx: Tx, ids: number[]): Promise<Row[]> {
    const lock = this.db.dialect === 'mysql' ? ' FOR UPDATE' : '';
    const { rows } = await tx.run(
      `SELECT * FROM ${this.q(this.resource.table)} WHERE ${this.q('id')} IN (${placeholders(ids.length)})${lock}`,
      ids,
    );
    return rows;
  }

  private requireAll(ids: number[], found: Row[], consequence: string) {
    const present = new Set(found.map((r) => Number(r.id)));
    const missing = ids.filter((id) => !present.has(id));
    if (missing.length > 0) {
      throw RecordError.invalid(
        `No ${this.plural} with ids ${missing.join(', ')}; ${consequence}.`,
        { id: missing.map((id) => `${this.resource.label} ${id} not found.`) },
      );
    }
  }

  /**
   * Referenced rows exist and unique values are free, for every item at once (one query per
   * referenced table and per unique field). The errors of each item, null where it is fine.
   * Swapping unique values between records of one bulk update is not supported.
   */
  private async check(tx: Tx, items: Item[]): Promise<(FieldErrors | null)[]> {
    const errors: FieldErrors[] = items.map((item) => ({ ...item.errors }));
    const add = (i: number, key: string, message: string) => (errors[i][key] ??= []).push(message);
    // A value the body check rejected is not looked up.
    const checked = (i: number, key: string) => !items[i].errors?.[key];

    const references = [
      ...this.references.map((f) => ({ key: f.name, table: f.references!, many: false })),
      ...this.relations.map((f) => ({ key: f.writeAs!, table: f.table, many: true })),
    ];
    for (const { key, table, many } of references) {
      const wanted = new Set<number>();
      items.forEach(({ values }, i) => {
        if (checked(i, key)) for (const id of idsOf(values[key])) wanted.add(id);
      });
      if (wanted.size === 0) continue;
      const found = await this.existing(tx, table, [...wanted]);
      items.forEach(({ values }, i) => {
        if (!checked(i, key)) return;
        const missing = idsOf(values[key]).filter((id) => !found.has(id));
        if (missing.length === 0) return;
        const noun = singular(table);
        add(
          i,
          key,
          many ? `No ${noun} with id ${missing.join(', ')}.` : `No ${noun} with id ${missing[0]}.`,
        );
      });
    }

    for (const field of this.uniques) {
      const owners = new Map<unknown, number>();
      items.forEach(({ values }, i) => {
        const value = values[field.name];
        if (value === undefined || value === null || !checked(i, field.name)) return;
        if (owners.has(value))
          add(i, field.name, `Same as item ${owners.get(value)! + 1} of this request.`);
        else owners.set(value, i);
      });
      if (owners.size === 0) continue;
      const { rows } = await tx.run(
        `SELECT ${this.q('id')} AS id, ${this.q(field.column)} AS value FROM ${this.q(this.resource.table)}` +
          ` WHERE ${this.q(field.column)} IN (${placeholders(owners.size)})`,
        [...owners.keys()],
      );
      const inserted = this.insertedBy.get(tx);
      for (const row of rows) {
        const i = owners.get(row.value)!;
        if (Number(row.id) === Number(items[i].current?.id)) continue; // a record keeps its own value
        if (inserted?.has(Number(row.id))) continue; // an item of this request, not yet refused
        add(
          i,
          field.name,
          `${withArticle(this.noun)} with this ${words(field.name)} already exists.`,
        );
      }
    }
    return errors.map((e) => (Object.keys(e).length > 0 ? e : null));
  }

  private async existing(tx: Tx, table: string, ids: number[]): Promise<Set<number>> {
    const valid = ids.filter((id) => id >= 1 && id <= INT_MAX);
    if (valid.length === 0) return new Set();
    const { rows } = await tx.run(
      `SELECT ${this.q('id')} AS id FROM ${this.q(table)} WHERE ${this.q('id')} IN (${placeholders(valid.length)})`,
      valid,
    );
    return new Set(rows.map((r) => Number(r.id)));
  }

  private async insert(tx: Tx, values: Values): Promise<number> {
    await this.takeExclusiveFlags(tx, values, undefined);
    const row = this.columns(values);
    const now = toDatabaseTimestamp(new Date());
    if (this.stamped.created) row[this.stamped.created] = now;
    if (this.stamped.updated) row[this.stamped.updated] = now;
    const names = Object.keys(row);
    const { insertId } = await tx.run(
      `INSERT INTO ${this.q(this.resource.table)} (${names.map((n) => this.q(n)).join(', ')})` +
        ` VALUES (${placeholders(names.length)})`,
      Object.values(row),
    );
    const inserted = this.insertedBy.get(tx) ?? new Set<number>();
    this.insertedBy.set(tx, inserted.add(Number(insertId)));
    for (const relation of this.relations) {
      if (values[relation.writeAs!] !== undefined)
        await this.link(tx, relation, insertId, values[relation.writeAs!]);
    }
    return insertId;
  }

  /**
   * The rows of a bulk create, their ids in the order of `items`: one multi-row INSERT per run
   * of items that set the same columns, where the ids it gives are known (consecutive: SQLite,
   * and MySQL unless its auto-increment locking interleaves statements), else one INSERT each.
   * Collections with relations or exclusive flags write each record on its own.
   */
  private async insertAll(tx: Tx, items: Item[]): Promise<number[]> {
    const step = this.relations.length || this.exclusive.length ? 0 : await this.idStep(tx);
    if (step === 0) {
      const ids: number[] = [];
      for (const item of items) ids.push(await this.insert(tx, item.values));
      return ids;
    }
    const now = toDatabaseTimestamp(new Date());
    const rows = items.map((item) => {
      const row = this.columns(item.values);
      if (this.stamped.created) row[this.stamped.created] = now;
      if (this.stamped.updated) row[this.stamped.updated] = now;
      return row;
    });
    const ids: number[] = [];
    for (let start = 0; start < rows.length;) {
      const names = Object.keys(rows[start]);
      const key = names.join(',');
      let end = start + 1;
      while (end < rows.length && Object.keys(rows[end]).join(',') === key) end++;
      const run = rows.slice(start, end);
      const { insertId } = await tx.run(
        `INSERT INTO ${this.q(this.resource.table)} (${names.map((n) => this.q(n)).join(', ')})` +
          ` VALUES ${run.map(() => `(${placeholders(names.length)})`).join(', ')}`,
        run.flatMap((row) => Object.values(row)),
      );
      // MySQL answers with the first id of the statement, SQLite with the last.
      const first = this.db.dialect === 'mysql' ? insertId : insertId - (run.length - 1) * step;
      for (let i = 0; i < run.length; i++) ids.push(first + i * step);
      start = end;
    }
    return ids;
  }

  /**
   * How far apart the ids of one multi-row INSERT are (1 on SQLite, MySQL's
   * auto_increment_increment), or 0 where they need not be consecutive (MySQL's interleaved
   * auto-increment lock mode, 2). Asked once.
   */
  private async idStep(tx: Tx): Promise<number> {
    if (this.db.dialect !== 'mysql') return 1;
    if (this.mysqlIdStep === undefined) {
      const { rows } = await tx.run(
        'SELECT @@innodb_autoinc_lock_mode AS mode, @@auto_increment_increment AS step',
      );
      this.mysqlIdStep = Number(rows[0].mode) === 2 ? 0 : Number(rows[0].step);
    }
    return this.mysqlIdStep;
  }

  /** `batch`: the rows of a bulk update by id, kept current when this write changes one of them. */
  private async save(
    tx: Tx,
    values: Values,
    current: Row,
    batch?: Map<number, Row>,
  ): Promise<void> {
    await this.takeExclusiveFlags(tx, values, current, batch);
    const row = this.columns(values);
    const updated = this.stamped.updated;
    if (updated) row[updated] = toDatabaseTimestamp(laterThan(current[updated]));
    // Every write moves the version, guarded by the version read: the check and the write are
    // one statement, so a change made in between can never be overwritten.
    const version = this.q('version');
    const sets = [
      ...Object.keys(row).map((n) => `${this.q(n)} = ?`),
      `${version} = ${version} + 1`,
    ];
    const { affected } = await tx.run(
      `UPDATE ${this.q(this.resource.table)} SET ${sets.join(', ')}` +
        ` WHERE ${this.q('id')} = ? AND ${version} = ?`,
      [...Object.values(row), current.id, current.version],
    );
    if (affected === 0)
      throw RecordError.preconditionFailed(this.resource.label, Number(current.id));
    for (const relation of this.relations) {
      if (values[relation.writeAs!] !== undefined)
        await this.link(tx, relation, Number(current.id), values[relation.writeAs!]);
    }
  }

  /**
   * `save` without the row read first, for collections without relations or exclusive flags:
   * one UPDATE, guarded by the versions If-Match names, that moves the version and sets
   * updated_at to now, or a millisecond past the stored time if the clock has not moved past it.
   * Only when it changes nothing is the row looked up, to tell "not found" from "precondition
   * failed".
   */
  private async saveGuarded(tx: Tx, id: number, values: Values, condition?: Precondition) {
    const versions =
      condition === undefined || condition === '*' ? undefined : versionsNamed(condition, id);
    const row = this.columns(values);
    const version = this.q('version');
    const sets = Object.keys(row).map((n) => `${this.q(n)} = ?`);
    const parameters = Object.values(row);
    if (this.stamped.updated) {
      const stored = this.q(this.stamped.updated);
      const now = toDatabaseTimestamp(new Date());
      const later =
        this.db.dialect === 'mysql'
          ? `${stored} + INTERVAL 1000 MICROSECOND`
          : `strftime('%Y-%m-%d %H:%M:%f', ${stored}, '+0.001 seconds')`;
      sets.push(`${stored} = CASE WHEN ${stored} < ? THEN ? ELSE ${later} END`);
      parameters.push(now, now);
    }
    sets.push(`${version} = ${version} + 1`);
    if (versions === undefined || versions.length > 0) {
      const guard = versions ? ` AND ${version} IN (${placeholders(versions.length)})` : '';
      const { affected } = await tx.run(
        `UPDATE ${this.q(this.resource.table)} SET ${sets.join(', ')} WHERE ${this.q('id')} = ?${guard}`,
        [...parameters, id, ...(versions ?? [])],
      );
      if (affected === 1) return;
    }
    throw await this.missedGuard(tx, id, condition);
  }

  /**
   * Why a write guarded by its record's version changed nothing: the record is gone (404), or it
   * is at a version `condition` does not name (412, in the words `preconditionFailure` picks).
   */
  private async missedGuard(tx: Tx, id: number, condition?: Precondition): Promise<RecordError> {
    const { rows } = await tx.run(
      `SELECT ${this.q('version')} FROM ${this.q(this.resource.table)} WHERE ${this.q('id')} = ?`,
      [id],
    );
    if (rows.length === 0 || condition === undefined || condition === '*') {
      return RecordError.notFound(this.resource.label, id);
    }
    return preconditionFailure(this.resource.label, id, Number(rows[0].version), condition);
  }

  /**
   * The `exclusiveWithin` rule: a record whose flag becomes true (set now, or moved to another
   * group while true) clears the flag of the group's other record, in the same transaction. A
   * unique index backs the rule in the database. The cleared record changed: its version moves
   * (its ETag with it), so does its `updated_at` if it has one, and it has its event (`changed`).
   * Its row in `batch`, if there, is kept as it now is.
   */
  private async takeExclusiveFlags(
    tx: Tx,
    values: Values,
    current: Row | undefined,
    batch?: Map<number, Row>,
  ) {
    for (const field of this.exclusive) {
      const rule = field.write!.exclusiveWithin!;
      const group = this.scalars.find((f) => f.name === rule.field)!;
      const flagged = values[field.name] ?? (current ? Number(current[field.column]) === 1 : false);
      const value = values[group.name] ?? current?.[group.column];
      const moved = value !== current?.[group.column];
      if (values[field.name] !== true && !(flagged && moved)) continue;
      // On MySQL through the unique key, so only the one flagged row is locked: a search by the
      // group would lock all of its rows and deadlock concurrent edits.
      const by = this.db.dialect === 'mysql' && rule.uniqueKey ? rule.uniqueKey : group.column;
      const lock = this.db.dialect === 'mysql' ? ' FOR UPDATE' : '';
      const parent = group.references;
      if (lock && parent) {
        // The group's own row first (the user of the e-mails): the writes that take one group's
        // flag queue there, rather than meet on the flagged row's index entries, where InnoDB
        // answers two such writes with a deadlock.
        await tx.run(
          `SELECT ${this.q('id')} FROM ${this.q(parent)} WHERE ${this.q('id')} = ?${lock}`,
          [value],
        );
      }
      const updatedColumn = this.stamped.updated;
      const stamp = updatedColumn ? `, ${this.q(updatedColumn)} AS updated_at` : '';
      const { rows } = await tx.run(
        `SELECT ${this.q('id')} AS id${stamp} FROM ${this.q(this.resource.table)}` +
          ` WHERE ${this.q(by)} = ? AND ${this.q(field.column)} = 1 AND ${this.q('id')} <> ?${lock}`,
        [value, current?.id ?? 0],
      );
      let cleared = this.cleared.get(tx);
      if (rows.length > 0 && !cleared) this.cleared.set(tx, (cleared = new Set()));
      for (const other of rows) {
        const id = Number(other.id);
        const version = this.q('version');
        const sets = [`${this.q(field.column)} = 0`, `${version} = ${version} + 1`];
        const parameters: unknown[] = [];
        const updatedAt = updatedColumn
          ? toDatabaseTimestamp(laterThan(other.updated_at))
          : undefined;
        if (updatedAt !== undefined) {
          sets.push(`${this.q(updatedColumn!)} = ?`);
          parameters.push(updatedAt);
        }
        await tx.run(
          `UPDATE ${this.q(this.resource.table)} SET ${sets.join(', ')} WHERE ${this.q('id')} = ?`,
          [...parameters, id],
        );
        cleared!.add(id);
        const row = batch?.get(id);
        if (row) {
          row[field.column] = 0;
          row.version = Number(row.version) + 1;
          if (updatedAt !== undefined) row[updatedColumn!] = updatedAt;
        }
      }
    }
  }

  private async remove(tx: Tx, ids: number[]): Promise<number> {
    const { affected } = await tx.run(
      `DELETE FROM ${this.q(this.resource.table)} WHERE ${this.q('id')} IN (${placeholders(ids.length)})`,
      ids,
    );
    return affected;
  }

  /** Replaces the rows of a to-many relation. */
  private async link(tx: Tx, relation: CollectionField, id: number, ids: unknown) {
    const q = (n: string) => this.q(n);
    await tx.run(`DELETE FROM ${q(relation.through)} WHERE ${q(relation.ownerColumn)} = ?`, [id]);
    const targets = [...new Set(idsOf(ids))];
    if (targets.length === 0) return;
    await tx.run(
      `INSERT INTO ${q(relation.through)} (${q(relation.ownerColumn)}, ${q(relation.targetColumn)}) VALUES ` +
        targets.map(() => '(?, ?)').join(', '),
      targets.flatMap((target) => [id, target]),
    );
  }

  /** Column values of a write: scalar fields only; relations are written by `link`. */
  private columns(values: Values): Row {
    const row: Row = {};
    for (const field of this.scalars) {
      const value = values[field.name];
      if (field.write && value !== undefined) {
        row[field.column] = typeof value === 'boolean' ? Number(value) : value;
      }
    }
    return row;
  }

  private q(name: string): string {
    return this.db.quote(name);
  }
}

/** The checks' findings as a 400: of the one record, or of each item of a bulk request. */
function throwErrors(errors: (FieldErrors | null)[], bulk: boolean, unlisted = 0): void {
  if (!errors.some(Boolean)) return;
  throw bulk
    ? RecordError.invalidItems(errors, unlisted)
    : RecordError.validation(errors[0]!, unlisted);
}

/** The fields the items' body checks found wrong without naming them. */
function unlistedIn(items: Item[]): number {
  let unlisted = 0;
  for (const item of items) unlisted += item.unlisted ?? 0;
  return unlisted;
}

/**
 * A unique index or a foreign key refused a write (MySQL/MariaDB, SQLite): the checks say which
 * value, in the words of the API.
 */
const CONSTRAINT_FAILURES = new Set([
  'ER_DUP_ENTRY',
  'ER_NO_REFERENCED_ROW',
  'ER_NO_REFERENCED_ROW_2',
  'SQLITE_CONSTRAINT_UNIQUE',
  'SQLITE_CONSTRAINT_FOREIGNKEY',
  'SQLITE_CONSTRAINT_PRIMARYKEY',
]);

/** The items of a bulk request: a non-empty array of at most BULK_LIMIT, or 400 saying so. */
function bulkArray(body: unknown, shape: string): unknown[] {
  if (!Array.isArray(body) || body.length === 0) throw RecordError.invalid(shape);
  if (body.length > BULK_LIMIT) {
    throw RecordError.invalid(`${shape} At most ${BULK_LIMIT} at a time.`);
  }
  return body;
}

/**
 * What is wrong with the ids of a bulk update's items, each naming the item by its place in the
 * body counted from 1 ("item 2"), as every message about a bulk write's items counts them.
 */
function idProblems(items: Record<string, unknown>[], ids: (number | undefined)[]): string[] {
  const problems: string[] = [];
  const first = new Map<number, number>();
  ids.forEach((id, index) => {
    if (id === undefined) {
      const raw = items[index].id;
      problems.push(
        raw === undefined
          ? `item ${index + 1} has no id`
          : `item ${index + 1} has id ${shown(raw)}`,
      );
    } else if (first.has(id)) {
      problems.push(`items ${first.get(id)! + 1} and ${index + 1} have the same id ${id}`);
    } else first.set(id, index);
  });
  return problems;
}

/** A value of a body as JSON writes it, cut at 40 characters: enough to find it. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function idsOf(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
}

/** Now, or a millisecond after the stored time if the clock has not moved past it: updated_at always moves. */
function laterThan(stored: unknown): Date {
  const previous = typeof stored === 'string' ? Date.parse(`${stored.replace(' ', 'T')}Z`) : NaN;
  const now = Date.now();
  return new Date(Number.isNaN(previous) ? now : Math.max(now, previous + 1));
}
