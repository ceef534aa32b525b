/**
 * The WHERE and ORDER BY of a list request, made of the SQL expressions a collection's paths
 * were compiled to (RecordQuery) and of bound parameters: no name or value a client sends is
 * written into SQL.
 */
import { ScalarType } from '../core/fields';
import { Filter, FilterValue, ListQuery, Ordering } from '../core/list-query';

/** The SQL behind a filterable path. */
export interface PathColumn {
  type: ScalarType;
  /** Expression compared and ordered by (decimals are cast on SQLite, which stores them as text). */
  expression: string;
  /** How a value of this type is bound: `?`, or a cast for decimals. */
  placeholder: string;
  /** Join this path needs, if it lives on a referenced table. */
  join?: string;
}

/** The search of a collection: its condition, and how many times the pattern is bound in it. */
export interface SearchSql {
  sql: string;
  parameters: number;
}

/** ` ORDER BY …` and the joins its terms need. */
export interface OrderBy {
  sql: string;
  joins: string[];
}

/** A list request's filters and search, as SQL. */
export interface Where {
  /** ` WHERE a AND b`, or ''. */
  sql: string;
  /** `a AND b`, or ''. */
  conditions: string;
  parameters: unknown[];
  /** The joins the conditions need. */
  joins: Set<string>;
}

/** The WHERE of a list request: its filters on the paths' expressions, and its search. */
export function whereOf(
  columns: ReadonlyMap<string, PathColumn>,
  query: ListQuery,
  search: SearchSql | undefined,
): Where {
  const clauses: string[] = [];
  const parameters: unknown[] = [];
  const joins = new Set<string>();
  for (const filter of query.filters) {
    const column = columns.get(filter.path)!;
    if (column.join) joins.add(column.join);
    clauses.push(condition(column, filter, parameters));
  }
  if (query.search !== undefined && search) {
    const pattern = likePattern(query.search);
    clauses.push(search.sql);
    for (let i = 0; i < search.parameters; i++) parameters.push(pattern);
  }
  const conditions = clauses.join(' AND ');
  return { sql: conditions ? ` WHERE ${conditions}` : '', conditions, parameters, joins };
}

function condition(column: PathColumn, filter: Filter, parameters: unknown[]): string {
  const { expression, placeholder } = column;
  const [value] = filter.values;
  switch (filter.op) {
    case 'eq':
      if (value === null) return `${expression} IS NULL`;
      parameters.push(bindable(value));
      return `${expression} = ${placeholder}`;
    case 'in': {
      const present = filter.values.filter((v) => v !== null);
      const parts: string[] = [];
      if (present.length > 0) {
        parameters.push(...present.map(bindable));
        parts.push(`${expression} IN (${present.map(() => placeholder).join(', ')})`);
      }
      if (present.length < filter.values.length) parts.push(`${expression} IS NULL`);
      return `(${parts.join(' OR ')})`;
    }
    case 'contains':
      parameters.push(likePattern(String(value)));
      return `LOWER(${expression}) LIKE ? ESCAPE '!'`;
    default:
      parameters.push(bindable(value));
      return `${expression} ${COMPARISONS[filter.op]} ${placeholder}`;
  }
}

/**
 * ` ORDER BY …`, and the joins its terms need. Unless a term is already unique, id breaks ties,
 * in the direction of the last term: one index on a column, which ends on the primary key,
 * then serves both directions. (MariaDB will not read a unique index for `name, id`.)
 */
export function orderByOf(
  columns: ReadonlyMap<string, PathColumn>,
  ordering: Ordering[],
  uniquePaths: ReadonlySet<string>,
  idColumn: string,
): OrderBy {
  const joins: string[] = [];
  const terms = ordering.map((o) => {
    const column = columns.get(o.path)!;
    if (column.join) joins.push(column.join);
    return `${column.expression} ${o.descending ? 'DESC' : 'ASC'}`;
  });
  if (!ordering.some((o) => uniquePaths.has(o.path))) {
    terms.push(`${idColumn} ${ordering.at(-1)?.descending ? 'DESC' : 'ASC'}`);
  }
  return { sql: ` ORDER BY ${terms.join(', ')}`, joins };
}

const COMPARISONS: Record<string, string> = { lt: '<', lte: '<=', gt: '>', gte: '>=' };

/** SQLite cannot bind booleans. */
function bindable(value: FilterValue): unknown {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

/** `%text%`, lower-cased, with `%`, `_` and the escape character `!` taken literally. */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, '!$&')}%`;
}
