/**
 * Orderings that no index of the table can serve as SQL states them, read along indexes anyway:
 * each walk finds the ids of one page in a few statements, which the list query then reads whole
 * and puts in order. Without them, page 1 sorts the whole filtered table (seconds at a million
 * records). README "Large tables" has the figures.
 *
 * - ReferenceWalk: a key of a referenced row, such as a marble's `user.login`.
 * - PrefixWalk: a text too long for an index (a marble's `description`), by an index on its
 *   first characters.
 *
 * Their statements run one after the other, outside a transaction: a record that changes
 * meanwhile is kept once, and the page's rows are put in order by their current values.
 */
import { PageWindow } from '../core/paginator';
import { Row, SqlDatabase } from '../db/sql-database';

/** A list request's filters and search: `a AND b` (or ''), their parameters and their joins. */
export interface Conditions {
  sql: string;
  parameters: unknown[];
  joins: string;
}

/** Where the walk runs: `{root table} t`, its id, and the reference. */
export interface WalkedReference {
  /** `"marbles" t` */
  from: string;
  /** `t."id"` */
  id: string;
  /** `t."user_id"`: the referenced row's id, or NULL. */
  foreignKey: string;
  /** `"users"`, its id column and the key ordered by. */
  table: string;
  targetId: string;
  key: string;
}

/** Finds the ids of one page, in order. */
export interface PageWalk {
  pageIds(filter: Conditions, window: PageWindow, descending: boolean): Promise<number[]>;
}

const FIRST_BATCH = 1;
const GROWTH = 8;
/** SQLite joins at most 500 SELECTs in one compound statement. */
const MAX_BATCH = 256;
/** SQLite binds at most 32 766 parameters in one statement; each referenced row repeats the filters'. */
const MAX_PARAMETERS = 30_000;

/**
 * `ORDER BY r.login, t.id` over a join can be read along no index: its terms come from two tables.
 * When the field is a key of its table (unique, never NULL) and the record holds the referenced
 * row's id, that order is also: the records without a reference, by id (first ascending, last
 * descending, as SQL sorts NULL), then the referenced rows in the key's order and, for each one,
 * its records by id. The walk reads it that way: the referenced rows in batches along the key's
 * index, and the records of a batch along the foreign key's index (which ends on the id), each
 * referenced row's share cut where the page could be filled. Batches grow eightfold, so a page
 * takes a few statements whatever the size of either table, and reads at most offset + limit
 * records per referenced row it visits.
 */
export class ReferenceWalk implements PageWalk {
  private readonly first: Record<'ASC' | 'DESC', string>;
  private readonly next: Record<'ASC' | 'DESC', string>;

  constructor(
    private readonly db: SqlDatabase,
    private readonly ref: WalkedReference,
  ) {
    const targets = (direction: 'ASC' | 'DESC', after: string) =>
      `SELECT r.${ref.targetId} AS v, r.${ref.key} AS k FROM ${ref.table} r${after}` +
      ` ORDER BY r.${ref.key} ${direction} LIMIT ?`;
    this.first = { ASC: targets('ASC', ''), DESC: targets('DESC', '') };
    this.next = {
      ASC: targets('ASC', ` WHERE r.${ref.key} > ?`),
      DESC: targets('DESC', ` WHERE r.${ref.key} < ?`),
    };
  }

  /** The ids of the page's records, in order. */
  async pageIds(filter: Conditions, window: PageWindow, descending: boolean): Promise<number[]> {
    const direction = descending ? 'DESC' : 'ASC';
    const wanted = window.offset + window.limit;
    const ids: number[] = [];
    const seen = new Set<number>();
    const keep = (rows: Row[]) => {
      for (const row of rows) {
        const id = Number(row.id);
        if (seen.has(id)) continue;
        seen.add(id);
        ids.push(id);
      }
    };
    const unowned = () =>
      this.db.query(this.unownedSql(filter, direction, wanted - ids.length), filter.parameters);

    if (!descending) keep(await unowned());
    const perRow = 1 + filter.parameters.length;
    let batch = FIRST_BATCH;
    let after: unknown;
    while (ids.length < wanted) {
      const targets =
        after === undefined
          ? await this.db.query(this.first[direction], [batch])
          : await this.db.query(this.next[direction], [after, batch]);
      if (targets.length > 0) {
        const parameters = targets.flatMap((t) => [t.v, ...filter.parameters]);
        const sql = this.ownedSql(targets.length, filter, direction, wanted - ids.length);
        keep(await this.db.query(sql, parameters));
        after = targets[targets.length - 1].k;
      }
      if (targets.length < batch) break;
      batch = Math.max(1, Math.min(batch * GROWTH, MAX_BATCH, Math.floor(MAX_PARAMETERS / perRow)));
    }
    if (descending && ids.length < wanted) keep(await unowned());
    return ids.slice(window.offset, wanted);
  }

  /** The records without a reference, by id. */
  private unownedSql(filter: Conditions, direction: string, limit: number): string {
    return (
      `SELECT ${this.ref.id} AS id FROM ${this.ref.from}${filter.joins}` +
      ` WHERE ${this.ref.foreignKey} IS NULL${and(filter)} ORDER BY ${this.ref.id} ${direction} LIMIT ${limit}`
    );
  }

  /**
   * The first `limit` records of `count` referenced rows, the rows in the order given: one
   * branch per row, each read along the foreign key's index and cut at `limit`. (SQLite allows
   * LIMIT only on a whole compound SELECT, hence each branch in its own subquery.)
   */
  private ownedSql(count: number, filter: Conditions, direction: string, limit: number): string {
    const branches: string[] = [];
    for (let i = 0; i < count; i++) {
      branches.push(
        `SELECT id, ${i} AS n FROM (SELECT ${this.ref.id} AS id FROM ${this.ref.from}${filter.joins}` +
          ` WHERE ${this.ref.foreignKey} = ?${and(filter)} ORDER BY ${this.ref.id} ${direction} LIMIT ${limit}) b${i}`,
      );
    }
    return `${branches.join(' UNION ALL ')} ORDER BY n, id ${direction} LIMIT ${limit}`;
  }
}

function and(filter: Conditions): string {
  return filter.sql ? ` AND (${filter.sql})` : '';
}

/** Where a prefix walk runs: `{root table} t`, its id, the long text and its indexed prefix. */
export interface PrefixedColumn {
  from: string;
  id: string;
  /** `t."description"` */
  column: string;
  /** Its first `length` characters, as the index holds them (`t."description_key"`). */
  key: string;
  length: number;
}

/**
 * Ordering by a long text through an index on its first characters, its prefix. The prefix
 * orders like the text (a binary collation, on both databases): where two prefixes differ, the
 * texts differ the same way; and a prefix shorter than the length is the whole text. So the order
 * of (prefix, id), which the index holds, is the order of (text, id) but within a run of records
 * whose texts share a full-length prefix. The page is read along the index; a run that crosses
 * the page's first or last row is then read in text order at the page's place in it (a few
 * records, but for a long run of texts sharing their first characters). The list query puts the
 * page's rows in order.
 */
export class PrefixWalk implements PageWalk {
  constructor(
    private readonly db: SqlDatabase,
    private readonly text: PrefixedColumn,
  ) {}

  async pageIds(filter: Conditions, window: PageWindow, descending: boolean) {
    const { from, id, key } = this.text;
    const direction = descending ? 'DESC' : 'ASC';
    const where = filter.sql ? ` WHERE ${filter.sql}` : '';
    const rows = await this.db.query(
      `SELECT ${id} AS id, ${key} AS k FROM ${from}${filter.joins}${where}` +
        ` ORDER BY ${key} ${direction}, ${id} ${direction} LIMIT ${window.limit} OFFSET ${window.offset}`,
      filter.parameters,
    );
    const ids = rows.map((row) => Number(row.id));
    const keys = rows.map((row) => String(row.k));
    const runs = new Set([keys[0], keys[keys.length - 1]]);
    for (const run of runs) {
      if (run === undefined || [...run].length < this.text.length) continue;
      const at = keys.indexOf(run);
      const count = keys.lastIndexOf(run) - at + 1;
      // Only the first row's run can have records before the page.
      const before = at === 0 ? await this.runBefore(filter, run, ids[0], descending) : 0;
      const inTextOrder = await this.db.query(
        `SELECT ${id} AS id FROM ${from}${filter.joins} WHERE ${key} = ?${and(filter)}` +
          ` ORDER BY ${this.text.column} ${direction}, ${id} ${direction} LIMIT ${count} OFFSET ${before}`,
        [run, ...filter.parameters],
      );
      ids.splice(at, count, ...inTextOrder.map((row) => Number(row.id)));
    }
    return ids;
  }

  /** How many records of a run come before `firstId` in the index's order. */
  private async runBefore(filter: Conditions, run: string, firstId: number, descending: boolean) {
    const { from, id, key } = this.text;
    const [row] = await this.db.query(
      `SELECT COUNT(*) AS n FROM ${from}${filter.joins}` +
        ` WHERE ${key} = ? AND ${id} ${descending ? '>' : '<'} ?${and(filter)}`,
      [run, firstId, ...filter.parameters],
    );
    return Number(row.n);
  }
}
