/**
 * Every write of a collection (CONTRACT §4), driven by its declaration: create, update and
 * destroy of one record, the all-or-nothing bulk forms, and changes of one record computed from
 * its stored values (the marble actions). Each request is one transaction: validation,
 * existence and uniqueness checks, the writes and the declared rules commit together or not at
 * all. Failures are RecordErrors; the HTTP layer picks their status.
 */
import { FieldErrors, RecordError } from '../core/errors';
import { CollectionField, ScalarField } from '../core/fields';
import { InputMode, InputReader, Values } from '../core/input';
import { toDatabaseTimestamp } from '../core/list-query';
import { singular, withArticle, words } from '../core/names';
import { Precondition, entityTag, meets, preconditionFailure } from '../core/preconditions';
import { Message } from '../core/render';
import { ResourceDefinition, scalarFields } from '../core/resource';
import { INT_MAX, isPlainObject, recordId } from '../core/values';
import { Row, SqlDatabase, Tx } from './port';
import { ApiRecord, RecordQuery, placeholders, readerFor } from './record-query';

/** Most items in one bulk request. */
export const BULK_LIMIT = 1000;

interface Item {
  values: Values;
  /** What the body check found; the database checks add to it. */
  errors?: FieldErrors;
  current?: Row;
}

export class RecordWriter {
  private readonly input: InputReader;
  private readonly scalars: ScalarField[];
  private readonly uniques: ScalarField[];
  private readonly references: ScalarField[];
  private readonly exclusive: ScalarField[];
  private readonly relations: CollectionField[];
  private readonly stamped: { created: boolean; updated: boolean };
  private readonly plural: string;
  private readonly noun: string;
  /** Stored row → values by field name, for `change`. */
  private readonly decode: (row: Row) => Values;

  constructor(
    private readonly resource: ResourceDefinition,
    private readonly db: SqlDatabase,
    private readonly records: RecordQuery,
  ) {
    this.input = new InputReader(resource);
    this.scalars = scalarFields(resource);
    this.uniques = this.scalars.filter((f) => f.write?.unique);
    this.references = this.scalars.filter((f) => f.write?.references);
    this.exclusive = this.scalars.filter((f) => f.write?.exclusiveWithin);
    this.relations = resource.fields.filter(
      (f): f is CollectionField => f.kind === 'collection' && !!f.writeAs,
    );
    const has = (name: string) =>
      this.scalars.some((f) => f.name === name && f.type === 'timestamp');
    this.stamped = { created: has('created_at'), updated: has('updated_at') };
    this.plural = words(resource.plural);
    this.noun = words(resource.singular);
    const readers = this.scalars.map((f) => ({ key: f.name, read: readerFor(f.type, f.column) }));
    this.decode = (row) => Object.fromEntries(readers.map((r) => [r.key, r.read(row)]));
  }

  async create(body: unknown): Promise<ApiRecord> {
    const item = await this.readOne(body, 'create');
    const id = await this.db.transaction(async (tx) => {
      const [errors] = await this.check(tx, [item]);
      if (errors) throw RecordError.validation(errors);
      return this.insert(tx, item.values);
    });
    return (await this.records.findById(id))!;
  }

  /** A partial update; with `condition` (If-Match), only of the version it names, else 412. */
  async update(id: number, body: unknown, condition?: Precondition): Promise<ApiRecord> {
    const item = await this.readOne(body, 'update');
    await this.db.transaction(async (tx) => {
      const current = await this.lockOne(tx, id, condition);
      const [errors] = await this.check(tx, [{ ...item, current }]);
      if (errors) throw RecordError.validation(errors);
      await this.save(tx, item.values, current);
    });
    return (await this.records.findById(id))!;
  }

  async destroy(id: number, condition?: Precondition): Promise<void> {
    if (condition === undefined) {
      const affected = await this.db.transaction((tx) => this.remove(tx, [id]));
      if (affected === 0) throw RecordError.notFound(this.resource.label, id);
      return;
    }
    await this.db.transaction(async (tx) => {
      const current = await this.lockOne(tx, id, condition);
      const { affected } = await tx.run(
        `DELETE FROM ${this.q(this.resource.table)} WHERE ${this.q('id')} = ? AND ${this.q('version')} = ?`,
        [id, current.version],
      );
      if (affected === 0) throw RecordError.preconditionFailed(this.resource.label, id);
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
    const ids = await this.db.transaction(async (tx) => {
      const errors = await this.check(tx, work);
      if (errors.some(Boolean)) throw RecordError.invalidItems(errors);
      const created: number[] = [];
      for (const item of work) created.push(await this.insert(tx, item.values));
      return created;
    });
    return new Message('Bulk create successful.', await this.records.findByIds(ids));
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
    await this.db.transaction(async (tx) => {
      const rows = await this.lock(tx, ids as number[]);
      this.requireAll(ids as number[], rows, 'nothing was changed');
      const byId = new Map(rows.map((r) => [Number(r.id), r]));
      const work = read.map((item, i) => ({ ...item, current: byId.get(ids[i]!)! }));
      const errors = await this.check(tx, work);
      if (errors.some(Boolean)) throw RecordError.invalidItems(errors);
      for (const item of work) await this.save(tx, item.values, item.current);
    });
    return new Message('Bulk update successful.', await this.records.findByIds(ids as number[]));
  }

  async destroyAll(body: unknown): Promise<Message<ApiRecord>> {
    const shape = 'Bulk destroy requires an array of primary keys as input.';
    const ids = bulkArray(body, shape).map(recordId);
    if (ids.some((id) => id === undefined)) throw RecordError.invalid(shape);
    const unique = [...new Set(ids as number[])];
    const doomed = await this.records.findByIds(unique);
    await this.db.transaction(async (tx) => {
      this.requireAll(unique, doomed, 'nothing was deleted');
      const affected = await this.remove(tx, unique);
      // A record deleted by someone else since it was read: delete none.
      if (affected !== unique.length) {
        throw RecordError.invalid(`Some ${this.plural} no longer exist; nothing was deleted.`);
      }
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
      return {
        values: { ...this.decode(current), ...values },
        tag: entityTag(id, Number(current.version) + 1),
      };
    });
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
      throw RecordError.invalid(`${shape} The item at index ${stray} is not an object.`);
    }
    return items as Record<string, unknown>[];
  }

  private readMany(items: Record<string, unknown>[], mode: InputMode): Promise<Item[]> {
    return Promise.all(items.map((item) => this.input.read(item, mode)));
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
      ...this.references.map((f) => ({ key: f.name, table: f.write!.references!, many: false })),
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
      for (const row of rows) {
        const i = owners.get(row.value)!;
        if (Number(row.id) === Number(items[i].current?.id)) continue; // a record keeps its own value
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
    if (this.stamped.created) row.created_at = now;
    if (this.stamped.updated) row.updated_at = now;
    const names = Object.keys(row);
    const { insertId } = await tx.run(
      `INSERT INTO ${this.q(this.resource.table)} (${names.map((n) => this.q(n)).join(', ')})` +
        ` VALUES (${placeholders(names.length)})`,
      Object.values(row),
    );
    for (const relation of this.relations) {
      if (values[relation.writeAs!] !== undefined)
        await this.link(tx, relation, insertId, values[relation.writeAs!]);
    }
    return insertId;
  }

  private async save(tx: Tx, values: Values, current: Row): Promise<void> {
    await this.takeExclusiveFlags(tx, values, current);
    const row = this.columns(values);
    if (this.stamped.updated) row.updated_at = toDatabaseTimestamp(laterThan(current.updated_at));
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
   * The `exclusiveWithin` rule: a record whose flag becomes true (set now, or moved to another
   * group while true) clears the flag of the group's other record, in the same transaction. A
   * unique index backs the rule in the database.
   */
  private async takeExclusiveFlags(tx: Tx, values: Values, current: Row | undefined) {
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
      await tx.run(
        `UPDATE ${this.q(this.resource.table)} SET ${this.q(field.column)} = 0` +
          ` WHERE ${this.q(by)} = ? AND ${this.q(field.column)} = 1 AND ${this.q('id')} <> ?`,
        [value, current?.id ?? 0],
      );
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

/** The items of a bulk request: a non-empty array of at most BULK_LIMIT, or 400 saying so. */
function bulkArray(body: unknown, shape: string): unknown[] {
  if (!Array.isArray(body) || body.length === 0) throw RecordError.invalid(shape);
  if (body.length > BULK_LIMIT) {
    throw RecordError.invalid(`${shape} At most ${BULK_LIMIT} at a time.`);
  }
  return body;
}

/** What is wrong with the ids of a bulk update's items, each naming the item's index. */
function idProblems(items: Record<string, unknown>[], ids: (number | undefined)[]): string[] {
  const problems: string[] = [];
  const first = new Map<number, number>();
  ids.forEach((id, index) => {
    if (id === undefined) {
      const raw = items[index].id;
      problems.push(
        raw === undefined
          ? `the item at index ${index} has no id`
          : `the item at index ${index} has id ${JSON.stringify(raw) ?? String(raw)}`,
      );
    } else if (first.has(id)) {
      problems.push(`the items at index ${first.get(id)} and ${index} have the same id ${id}`);
    } else first.set(id, index);
  });
  return problems;
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
