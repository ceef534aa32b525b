/**
 * The SQL side of a collection, compiled once from its declaration: the select list, the joins,
 * the SQL expression behind every filterable path and the row mapper. A request only adds WHERE,
 * ORDER BY and LIMIT pieces made of those precompiled expressions and bound parameters, so no
 * name a client sends reaches SQL, and no per-request work repeats what is known per collection.
 *
 * Statements per list request: one COUNT on the root table (joined only to what the filters
 * name), one page query with the to-one joins, and one query per to-many relation for the whole
 * page. A page ordered by a key of a referenced table (`user.login`) or by a long text
 * (`description`) finds its ids first by walking indexes (index-walks.ts: a few statements more),
 * then reads those rows.
 */
import { hash } from 'node:crypto';
import { CollectionField, ReferenceField, ScalarField, ScalarType } from '../core/fields';
import { ListQuery } from '../core/list-query';
import { PageWindow } from '../core/paginator';
import { entityTag, selectionTag, tag } from '../core/preconditions';
import { ResourceDefinition } from '../core/resource';
import { Selection } from '../core/selection';
import { canonicalDecimal, isoTimestamp } from '../core/values';
import { Row, SqlDatabase } from '../db/sql-database';
import { PageWalk, PrefixWalk, ReferenceWalk } from './index-walks';
import { OrderBy, PathColumn, SearchSql, Where, orderByOf, whereOf } from './record-conditions';

export type ApiRecord = Record<string, unknown>;

export interface ListResult {
  records: ApiRecord[];
  /** Size of the whole filtered set, when it was asked for. */
  count?: number;
}

type Reader = (row: Row) => unknown;

interface Slot {
  key: string;
  read: Reader;
}

const ROOT = 't';

/** Aliases of the id and version columns in the reads by id (the entity tag). */
const TAG_ID = 'tag_id';
const VERSION = 'tag_version';

/** Owners whose to-many rows one query loads; pages are smaller than this. */
const OWNERS_PER_QUERY = 1000;

/** What a read selects and how it maps rows: for whole records, or for one field selection. */
interface Plan {
  /** `SELECT <columns>`. */
  selectList: string;
  /** The ` LEFT JOIN …` of the selected to-one references, and all of them as one string. */
  joins: string[];
  joinSql: string;
  slots: Slot[];
  manyLoaders: ManyLoader[];
  /** `SELECT …, t.id, t.version … WHERE t.id`, for the reads by id (their records carry a tag). */
  byId: string;
  /** `byId` and ` = ?`: the SQL text of a read of one record, built once. */
  oneById: string;
  /** The id is read only to load to-many relations; it is not sent. */
  dropId: boolean;
  /** Added to the entity tag of a field selection (a hash of it); '' for whole records. */
  tagSuffix: string;
}

/** The SQL of one declared field: its select expressions, its reader, its join. */
interface FieldPart {
  name: string;
  selects: string[];
  slot: Slot;
  join?: string;
  many?: ManyLoader;
}

export class RecordQuery {
  /** Type of every path a client may filter and order by. */
  readonly paths = new Map<string, ScalarType>();
  private readonly columns = new Map<string, PathColumn>();
  /** Paths whose values are unique and never NULL: ordering by one needs no tie-breaker. */
  private readonly uniquePaths = new Set<string>(['id']);
  private readonly parts: FieldPart[] = [];
  /** The plan of whole records, and those of the field selections asked for so far. */
  private readonly whole: Plan;
  private readonly plans = new Map<string, Plan>();
  /** `FROM <table> t`. */
  private readonly countFrom: string;
  /** `(LOWER(a) LIKE ? ESCAPE '!' OR …)` over the searchable columns, and how many `?` it has. */
  private readonly search: SearchSql | undefined;
  private readonly idColumn: string;
  /** The root table, quoted. */
  private readonly table: string;
  /** Orderings read by walking indexes (index-walks.ts), by path. */
  private readonly walks = new Map<string, PageWalk>();

  constructor(
    private readonly resource: ResourceDefinition,
    private readonly db: SqlDatabase,
  ) {
    const quote = (name: string) => db.quote(name);
    const column = (alias: string, name: string) => `${alias}.${quote(name)}`;
    let index = 0;
    const selectColumn = (expression: string, selects: string[]): string => {
      const alias = `c${index++}`;
      selects.push(`${expression} AS ${alias}`);
      return alias;
    };

    this.idColumn = column(ROOT, 'id');
    this.table = quote(resource.table);
    const from = `${this.table} ${ROOT}`;
    this.countFrom = `FROM ${from}`;

    let references = 0;
    for (const field of resource.fields) {
      if (field.kind === 'scalar') {
        const expression = column(ROOT, field.column);
        this.addPath(field.name, field.type, expression);
        const prefix = field.prefixKey;
        if (prefix) {
          const walk = new PrefixWalk(db, {
            from,
            id: this.idColumn,
            column: expression,
            key:
              db.dialect === 'mysql'
                ? column(ROOT, prefix.column)
                : `substr(${expression}, 1, ${prefix.length})`,
            length: prefix.length,
          });
          this.walks.set(field.name, walk);
        }
        if (field.unique && field.write?.required) this.uniquePaths.add(field.name);
        if (field.rendered) {
          const selects: string[] = [];
          const alias = selectColumn(expression, selects);
          this.parts.push({
            name: field.name,
            selects,
            slot: { key: field.name, read: readerFor(field.type, alias) },
          });
        }
      } else if (field.kind === 'reference') {
        const alias = `r${references++}`;
        const join =
          ` LEFT JOIN ${quote(field.table)} ${alias}` +
          ` ON ${column(alias, field.targetColumn)} = ${column(ROOT, field.rootColumn)}`;
        const selects: string[] = [];
        // Where the record holds the referenced row's id, filters and orderings on that id use
        // the record's own column (and its index), without the join; a key of the referenced
        // table is ordered by walking both indexes (index-walks.ts).
        const holdsId = field.targetColumn === 'id';
        const members = field.fields.map((sub) => {
          const expression = column(alias, sub.column);
          const path = `${field.name}.${sub.name}`;
          if (holdsId && sub.column === 'id') {
            this.addPath(path, sub.type, column(ROOT, field.rootColumn));
          } else {
            this.addPath(path, sub.type, expression, join);
          }
          if (holdsId && sub.key) {
            const walk = new ReferenceWalk(db, {
              from,
              id: this.idColumn,
              foreignKey: column(ROOT, field.rootColumn),
              table: quote(field.table),
              targetId: quote('id'),
              key: quote(sub.column),
            });
            this.walks.set(path, walk);
          }
          return { key: sub.name, read: readerFor(sub.type, selectColumn(expression, selects)) };
        });
        this.parts.push({
          name: field.name,
          selects,
          slot: { key: field.name, read: referenceReader(field, members) },
          join,
        });
      } else {
        this.parts.push({
          name: field.name,
          selects: [],
          slot: { key: field.name, read: () => [] },
          many: manyLoader(field, quote),
        });
      }
    }

    this.whole = this.plan(this.parts);
    const searched = resource.fields
      .filter((f): f is ScalarField => f.kind === 'scalar' && f.searchable)
      .map((f) => `LOWER(${column(ROOT, f.column)}) LIKE ? ESCAPE '!'`);
    this.search = searched.length
      ? { sql: `(${searched.join(' OR ')})`, parameters: searched.length }
      : undefined;
  }

  /**
   * The plan of a field selection: only the selected columns and the joins they need. Built once
   * per combination (there are finitely many: unknown names never get here) and kept.
   */
  private planOf(selection: Selection | undefined): Plan {
    if (!selection) return this.whole;
    let plan = this.plans.get(selection.key);
    if (!plan) {
      const kept = new Set(selection.fields);
      const parts = this.parts.filter((p) => kept.has(p.name));
      // To-many relations are loaded by the owners' ids: read the id even where it is not sent.
      const dropId = !kept.has('id') && parts.some((p) => p.many);
      if (dropId) parts.unshift(this.parts.find((p) => p.name === 'id')!);
      const tagSuffix = hash('sha1', selection.key, 'hex').slice(0, 8);
      plan = { ...this.plan(parts), dropId, tagSuffix };
      this.plans.set(selection.key, plan);
    }
    return plan;
  }

  private plan(parts: FieldPart[]): Plan {
    const selects = parts.flatMap((p) => p.selects);
    const joins = parts.flatMap((p) => (p.join ? [p.join] : []));
    // A selection of to-many relations only still reads a column: SQL needs one.
    const selectList = `SELECT ${selects.length ? selects.join(', ') : `${this.idColumn} AS c_`}`;
    // The reads by id also read the id and version for the record's entity tag, whatever the
    // field selection.
    const byId =
      `${selectList}, ${this.idColumn} AS ${TAG_ID}, ${ROOT}.${this.db.quote('version')} AS ${VERSION}` +
      ` ${this.countFrom}${joins.join('')} WHERE ${this.idColumn}`;
    return {
      selectList,
      joins,
      joinSql: joins.join(''),
      slots: parts.map((p) => p.slot),
      manyLoaders: parts.flatMap((p) => (p.many ? [p.many] : [])),
      byId,
      oneById: `${byId} = ?`,
      dropId: false,
      tagSuffix: '',
    };
  }

  /**
   * The records of one page (or all, without a window) and, if asked, the filtered count, the
   * two statements at once. A page after the first is a deferred join: the page's ids are found
   * first (over the filter's and ordering's columns only, where indexes serve), then only those
   * rows are read whole, so a deep page does not read and discard every row before it.
   */
  async list(
    query: ListQuery,
    window: PageWindow | null,
    withCount: boolean,
    selection?: Selection,
  ): Promise<ListResult> {
    const plan = this.planOf(selection);
    const where = whereOf(this.columns, query, this.search);
    const order = orderByOf(this.columns, query.ordering, this.uniquePaths, this.idColumn);
    const walk = window && query.ordering.length === 1 && this.walks.get(query.ordering[0].path);
    const [records, count] = await Promise.all([
      walk
        ? this.walkedPage(walk, query.ordering[0].descending, plan, where, order, window)
        : this.select(plan, this.pageSql(plan, where, order, window), where.parameters, 'index'),
      withCount ? this.count(where) : undefined,
    ]);
    return { records, count };
  }

  private pageSql(plan: Plan, where: Where, order: OrderBy, window: PageWindow | null): string {
    if (window && window.offset > 0) {
      const keyJoins = [...new Set([...where.joins, ...order.joins])].join('');
      const keys = `SELECT ${this.idColumn} AS id ${this.countFrom}${keyJoins}${where.sql}${order.sql}${limit(window)}`;
      return (
        `${plan.selectList} FROM (${keys}) k JOIN ${this.table} ${ROOT} ON ${this.idColumn} = k.id` +
        `${joinsOf(plan, order.joins)}${order.sql}`
      );
    }
    const joins = joinsOf(plan, order.joins, where.joins);
    return `${plan.selectList} ${this.countFrom}${joins}${where.sql}${order.sql}${limit(window)}`;
  }

  /** A page in an order a walk reads: its ids by the walk, then its rows. */
  private async walkedPage(
    walk: PageWalk,
    descending: boolean,
    plan: Plan,
    where: Where,
    order: OrderBy,
    window: PageWindow,
  ): Promise<ApiRecord[]> {
    const filter = {
      sql: where.conditions,
      parameters: where.parameters,
      joins: [...where.joins].join(''),
    };
    const ids = await walk.pageIds(filter, window, descending);
    if (ids.length === 0) return [];
    const sql =
      `${plan.selectList} ${this.countFrom}${joinsOf(plan, order.joins)}` +
      ` WHERE ${this.idColumn} IN (${placeholders(ids.length)})${order.sql}`;
    return this.select(plan, sql, ids, 'index');
  }

  private async count(where: Where): Promise<number> {
    const [row] = await this.db.query(
      `SELECT COUNT(*) AS n ${this.countFrom}${[...where.joins].join('')}${where.sql}`,
      where.parameters,
    );
    return Number(row.n);
  }

  /** The ids of the whole filtered set, in order: the first read of a streamed list. */
  async orderedIds(query: ListQuery): Promise<number[]> {
    const where = whereOf(this.columns, query, this.search);
    const order = orderByOf(this.columns, query.ordering, this.uniquePaths, this.idColumn);
    const joins = [...new Set([...where.joins, ...order.joins])].join('');
    const sql = `SELECT ${this.idColumn} AS id ${this.countFrom}${joins}${where.sql}${order.sql}`;
    return (await this.db.query(sql, where.parameters)).map((row) => Number(row.id));
  }

  /** The records of some of `orderedIds`'s ids, as a list shows them, in the query's order. */
  async byIdsInOrder(ids: number[], query: ListQuery, selection?: Selection): Promise<ApiRecord[]> {
    if (ids.length === 0) return [];
    const plan = this.planOf(selection);
    const order = orderByOf(this.columns, query.ordering, this.uniquePaths, this.idColumn);
    const sql =
      `${plan.selectList} ${this.countFrom}${joinsOf(plan, order.joins)}` +
      ` WHERE ${this.idColumn} IN (${placeholders(ids.length)})${order.sql}`;
    return this.select(plan, sql, ids, 'index');
  }

  async findById(id: number, selection?: Selection): Promise<ApiRecord | undefined> {
    const plan = this.planOf(selection);
    const [record] = await this.select(plan, plan.oneById, [id], 'show');
    return record;
  }

  /** Records with the given ids, in the order of `ids` (missing ones left out). */
  async findByIds(ids: number[]): Promise<ApiRecord[]> {
    if (ids.length === 0) return [];
    const plan = this.whole;
    const sql = `${plan.byId} IN (${placeholders(ids.length)})`;
    const records = await this.select(plan, sql, ids, 'show');
    const byId = new Map<number, ApiRecord>(records.map((r) => [r.id as number, r]));
    const found: ApiRecord[] = [];
    for (const id of ids) {
      const record = byId.get(id);
      if (record) found.push(record);
    }
    return found;
  }

  private async select(plan: Plan, sql: string, parameters: unknown[], view: 'index' | 'show') {
    const rows = await this.db.query(sql, parameters);
    const records = rows.map((row) => mapRow(plan.slots, row));
    if (view === 'show') {
      records.forEach((record, i) =>
        tag(record, selectionTag(entityTag(rows[i][TAG_ID], rows[i][VERSION]), plan.tagSuffix)),
      );
    }
    for (const many of plan.manyLoaders) {
      if (view === 'show' || many.field.inIndex) await this.loadMany(many, records);
    }
    if (plan.dropId) for (const record of records) delete record.id;
    return records;
  }

  private async loadMany(many: ManyLoader, records: ApiRecord[]): Promise<void> {
    if (records.length === 0) return;
    // A page is one query; an unpaginated list (movies) goes in chunks, within SQLite's limit of
    // 32766 bound parameters.
    const rows: Row[] = [];
    for (let start = 0; start < records.length; start += OWNERS_PER_QUERY) {
      const owners = records.slice(start, start + OWNERS_PER_QUERY).map((r) => r.id);
      rows.push(
        ...(await this.db.query(
          `${many.sql} IN (${placeholders(owners.length)})${many.orderBy}`,
          owners,
        )),
      );
    }
    const byOwner = new Map<number, unknown[]>();
    for (const record of records) {
      const items: unknown[] = [];
      record[many.field.name] = items;
      byOwner.set(record.id as number, items);
    }
    for (const row of rows) {
      const item: ApiRecord = {};
      for (const slot of many.slots) item[slot.key] = slot.read(row);
      byOwner.get(Number(row.owner))?.push(item);
    }
  }

  private addPath(path: string, type: ScalarType, expression: string, join?: string) {
    this.paths.set(path, type);
    const decimal = type === 'decimal';
    const sqlite = this.db.dialect === 'sqlite';
    this.columns.set(path, {
      type,
      expression: decimal && sqlite ? `CAST(${expression} AS REAL)` : expression,
      placeholder: !decimal ? '?' : sqlite ? 'CAST(? AS REAL)' : 'CAST(? AS DECIMAL(65,30))',
      join,
    });
  }
}

function mapRow(slots: Slot[], row: Row): ApiRecord {
  const record: ApiRecord = {};
  for (const slot of slots) record[slot.key] = slot.read(row);
  return record;
}

/** The plan's joins and those the filters or the ordering need, each once. */
function joinsOf(plan: Plan, order: string[], where?: Set<string>): string {
  if (order.length === 0 && (!where || where.size === 0)) return plan.joinSql;
  return [...new Set([...plan.joins, ...(where ?? []), ...order])].join('');
}

/** The query that loads one to-many relation for a page, all but its list of owner ids. */
interface ManyLoader {
  field: CollectionField;
  sql: string;
  orderBy: string;
  slots: Slot[];
}

function manyLoader(field: CollectionField, q: (name: string) => string): ManyLoader {
  const select = field.fields.map((f, i) => `x.${q(f.column)} AS c${i}`).join(', ');
  return {
    field,
    sql:
      `SELECT j.${q(field.ownerColumn)} AS owner, ${select}` +
      ` FROM ${q(field.through)} j JOIN ${q(field.table)} x ON x.${q('id')} = j.${q(field.targetColumn)}` +
      ` WHERE j.${q(field.ownerColumn)}`,
    orderBy: ` ORDER BY j.${q(field.ownerColumn)}, x.${q('id')}`,
    slots: field.fields.map((f, i) => ({ key: f.name, read: readerFor(f.type, `c${i}`) })),
  };
}

function limit(window: PageWindow | null): string {
  return window ? ` LIMIT ${window.limit} OFFSET ${window.offset}` : '';
}

/** `?, ?, ?` for n parameters. */
export function placeholders(n: number): string {
  return new Array(n).fill('?').join(', ');
}

export function readerFor(type: ScalarType, alias: string): Reader {
  switch (type) {
    case 'integer':
      return (row) => (row[alias] === null ? null : Number(row[alias]));
    case 'boolean':
      return (row) => (row[alias] === null ? null : row[alias] === 1 || row[alias] === true);
    case 'decimal':
      return (row) => (row[alias] === null ? null : canonicalDecimal(String(row[alias])));
    case 'timestamp':
      return (row) => (row[alias] === null ? null : isoTimestamp(row[alias] as string));
    default:
      return (row) => row[alias];
  }
}

function referenceReader(field: ReferenceField, members: Slot[]): Reader {
  const absent = field.omitWhenAbsent ? undefined : null;
  const [idMember] = members;
  return (row) => {
    if (idMember.read(row) === null) return absent;
    const value: ApiRecord = {};
    for (const m of members) value[m.key] = m.read(row);
    return value;
  };
}
