/**
 * Every write of a collection (CONTRACT §4), driven by its declaration: create, update and
 * destroy of one record, and the all-or-nothing bulk forms. Each request is one transaction:
 * validation, existence and uniqueness checks, the writes and the collection's own rules (a
 * `beforeSave` hook) commit together or not at all.
 */
import { EntityTarget } from 'typeorm';
import { Database, Tx } from '../database/database';
import { ApiError, FieldErrors } from './api-error';
import { isPlainObject } from './body';
import { INT_MAX } from './dto';
import { CollectionField, ScalarField } from './fields';
import { InputMode, InputReader, Values } from './input';
import { ApiRecord, RecordQuery, placeholders } from './record-query';
import { Message } from './render';
import { toDatabaseTimestamp } from './list-query';
import { ResourceDefinition } from './resource';

export type Row = Record<string, unknown>;

export interface WriterOptions {
  /** TypeORM entity of the collection's table. */
  entity: EntityTarget<object>;
  /**
   * The collection's own rules, inside the transaction just before a row is written. `values`
   * are the fields being written; `current` is the stored row on update, undefined on create.
   */
  beforeSave?: (tx: Tx, values: Values, current: Row | undefined) => Promise<void>;
}

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
  private readonly uniques: ScalarField[];
  private readonly references: ScalarField[];
  private readonly relations: CollectionField[];
  private readonly stamped: { created: boolean; updated: boolean };
  private readonly plural: string;
  private readonly noun: string;
  private readonly article: string;

  constructor(
    private readonly resource: ResourceDefinition,
    private readonly db: Database,
    private readonly records: RecordQuery,
    private readonly options: WriterOptions,
  ) {
    this.input = new InputReader(resource);
    const scalars = resource.fields.filter((f): f is ScalarField => f.kind === 'scalar');
    this.uniques = scalars.filter((f) => f.write?.unique);
    this.references = scalars.filter((f) => f.write?.references);
    this.relations = resource.fields.filter(
      (f): f is CollectionField => f.kind === 'collection' && !!f.writeAs,
    );
    const has = (name: string) => scalars.some((f) => f.name === name && f.type === 'timestamp');
    this.stamped = { created: has('created_at'), updated: has('updated_at') };
    this.plural = resource.plural.replace(/_/g, ' ');
    this.noun = resource.singular.replace(/_/g, ' ');
    this.article = /^[aeiou]/i.test(this.noun) ? 'An' : 'A';
  }

  async create(body: unknown): Promise<ApiRecord> {
    const item = await this.readOne(body, 'create');
    const id = await this.db.transaction(async (tx) => {
      const [errors] = await this.check(tx, [item]);
      if (errors) invalid(errors);
      return this.insert(tx, item.values);
    });
    return (await this.records.findById(id))!;
  }

  async update(id: number, body: unknown): Promise<ApiRecord> {
    const item = await this.readOne(body, 'update');
    await this.db.transaction(async (tx) => {
      const [current] = await this.lock(tx, [id]);
      if (!current) throw ApiError.notFound(this.resource.label, id);
      const [errors] = await this.check(tx, [{ ...item, current }]);
      if (errors) invalid(errors);
      await this.save(tx, item.values, current);
    });
    return (await this.records.findById(id))!;
  }

  async destroy(id: number): Promise<void> {
    const affected = await this.db.transaction((tx) => this.remove(tx, [id]));
    if (affected === 0) throw ApiError.notFound(this.resource.label, id);
  }

  async bulkCreate(body: unknown): Promise<Message<ApiRecord>> {
    const items = this.bulkItems(body, 'Bulk create requires an array of objects as input.');
    const work = await this.readMany(items, 'create');
    const ids = await this.db.transaction(async (tx) => {
      const errors = await this.check(tx, work);
      if (errors.some(Boolean)) bulkInvalid(errors);
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
    if (ids.some((id) => id === undefined) || new Set(ids).size !== ids.length) {
      throw new ApiError(400, `${shape} Ids must be positive integers, each once.`);
    }
    const read = await this.readMany(items, 'update');
    await this.db.transaction(async (tx) => {
      const rows = await this.lock(tx, ids as number[]);
      this.requireAll(ids as number[], rows, 'nothing was changed');
      const byId = new Map(rows.map((r) => [Number(r.id), r]));
      const work = read.map((item, i) => ({ ...item, current: byId.get(ids[i]!)! }));
      const errors = await this.check(tx, work);
      if (errors.some(Boolean)) bulkInvalid(errors);
      for (const item of work) await this.save(tx, item.values, item.current);
    });
    return new Message('Bulk update successful.', await this.records.findByIds(ids as number[]));
  }

  async destroyAll(body: unknown): Promise<Message<ApiRecord>> {
    const shape = 'Bulk destroy requires an array of primary keys as input.';
    const ids = bulkArray(body, shape).map(recordId);
    if (ids.some((id) => id === undefined)) throw new ApiError(400, shape);
    const unique = [...new Set(ids as number[])];
    const doomed = await this.records.findByIds(unique);
    await this.db.transaction(async (tx) => {
      this.requireAll(unique, doomed, 'nothing was deleted');
      const affected = await this.remove(tx, unique);
      // A record deleted by someone else since it was read: delete none.
      if (affected !== unique.length) {
        throw new ApiError(400, `Some ${this.plural} no longer exist; nothing was deleted.`);
      }
    });
    return new Message('Bulk destroy successful.', doomed);
  }

  /**
   * One record changed by an SQL assignment over its own columns (`is_discounted = 1 -
   * is_discounted`), atomically: the row is locked, changed and read back in one transaction, so N
   * concurrent changes apply N times and each sees its own result. Returns the column `read`.
   */
  async change(
    id: number,
    assignment: string,
    parameters: unknown[],
    read: string,
  ): Promise<unknown> {
    return this.db.transaction(async (tx) => {
      const [current] = await this.lock(tx, [id]);
      if (!current) throw ApiError.notFound(this.resource.label, id);
      const stamp = this.stamped.updated ? `, ${this.q('updated_at')} = ?` : '';
      const stamps = this.stamped.updated
        ? [toDatabaseTimestamp(laterThan(current.updated_at))]
        : [];
      await tx.run(
        `UPDATE ${this.q(this.resource.table)} SET ${assignment}${stamp} WHERE ${this.q('id')} = ?`,
        [...parameters, ...stamps, id],
      );
      const { rows } = await tx.run(
        `SELECT ${this.q(read)} AS v FROM ${this.q(this.resource.table)} WHERE ${this.q('id')} = ?`,
        [id],
      );
      return rows[0].v;
    });
  }

  private async readOne(body: unknown, mode: InputMode): Promise<Item> {
    const record = this.input.unwrap(body);
    if (!isPlainObject(record)) {
      throw new ApiError(
        400,
        `Request body must be ${this.article.toLowerCase()} ${this.noun} object.`,
      );
    }
    return this.input.read(record, mode);
  }

  private bulkItems(body: unknown, shape: string): Record<string, unknown>[] {
    const items = bulkArray(body, shape).map((item) => this.input.unwrap(item));
    if (!items.every(isPlainObject)) throw new ApiError(400, shape);
    return items;
  }

  private readMany(items: Record<string, unknown>[], mode: InputMode): Promise<Item[]> {
    return Promise.all(items.map((item) => this.input.read(item, mode)));
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
      throw new ApiError(400, `No ${this.plural} with ids ${missing.join(', ')}; ${consequence}.`, {
        id: missing.map((id) => `${this.resource.label} ${id} not found.`),
      });
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
        const noun = table.replace(/s$/, '');
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
          `${this.article} ${this.noun} with this ${field.name.replace(/_/g, ' ')} already exists.`,
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
    await this.options.beforeSave?.(tx, values, undefined);
    const row = this.columns(values);
    const now = new Date();
    if (this.stamped.created) row.created_at = now;
    if (this.stamped.updated) row.updated_at = now;
    const id = await this.insertRow(tx, row);
    for (const relation of this.relations) {
      if (values[relation.writeAs!] !== undefined)
        await this.link(tx, relation, id, values[relation.writeAs!]);
    }
    return id;
  }

  private async save(tx: Tx, values: Values, current: Row): Promise<void> {
    await this.options.beforeSave?.(tx, values, current);
    const row = this.columns(values);
    if (this.stamped.updated) row.updated_at = laterThan(current.updated_at);
    if (Object.keys(row).length > 0) {
      await tx.manager
        .createQueryBuilder()
        .update(this.options.entity)
        .set(row)
        .where('id = :id', { id: current.id })
        .updateEntity(false)
        .execute();
    }
    for (const relation of this.relations) {
      if (values[relation.writeAs!] !== undefined)
        await this.link(tx, relation, Number(current.id), values[relation.writeAs!]);
    }
  }

  private async insertRow(tx: Tx, row: Row): Promise<number> {
    const result = await tx.manager
      .createQueryBuilder()
      .insert()
      .into(this.options.entity)
      .values(row)
      .updateEntity(false)
      .execute();
    // MySQL answers with a result header, SQLite with the new row id.
    return Number(this.db.dialect === 'mysql' ? result.raw.insertId : result.raw);
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
    for (const field of this.resource.fields) {
      if (field.kind === 'scalar' && field.write && values[field.name] !== undefined) {
        row[field.column] = values[field.name];
      }
    }
    return row;
  }

  private q(name: string): string {
    return this.db.quote(name);
  }
}

/** 400 with errors by field. */
export function invalid(errors: FieldErrors | (FieldErrors | null)[]): never {
  throw new ApiError(400, 'Validation failed; nothing was saved.', errors);
}

function bulkInvalid(errors: FieldErrors | (FieldErrors | null)[]): never {
  throw new ApiError(422, 'Some items are invalid; nothing was saved.', errors);
}

/** The items of a bulk request: a non-empty array of at most BULK_LIMIT, or 400 saying so. */
function bulkArray(body: unknown, shape: string): unknown[] {
  if (!Array.isArray(body) || body.length === 0) throw new ApiError(400, shape);
  if (body.length > BULK_LIMIT) {
    throw new ApiError(400, `${shape} At most ${BULK_LIMIT} at a time.`);
  }
  return body;
}

function idsOf(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
}

function recordId(value: unknown): number | undefined {
  const id = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= INT_MAX
    ? id
    : undefined;
}

/** Now, or a millisecond after the stored time if the clock has not moved past it: updated_at always moves. */
function laterThan(stored: unknown): Date {
  const previous = typeof stored === 'string' ? Date.parse(`${stored.replace(' ', 'T')}Z`) : NaN;
  const now = Date.now();
  return new Date(Number.isNaN(previous) ? now : Math.max(now, previous + 1));
}
