/**
 * Turns the query string of an index request into a typed ListQuery: filters, ordering, search and
 * page. Knows nothing of Nest or TypeORM: a collection hands in the paths it declares, and only
 * those paths are ever recognised, so nothing a client sends is taken as a name.
 */
import { RecordError, namesAsSent } from './errors';
import { ScalarType } from './fields';
import { closestName } from './names';

export type FilterOp = 'eq' | 'in' | 'lt' | 'lte' | 'gt' | 'gte' | 'contains';

/** A value ready to be bound as an SQL parameter. */
export type FilterValue = string | number | boolean | null;

export interface Filter {
  path: string;
  op: FilterOp;
  /** One value, except for `in`. */
  values: FilterValue[];
}

export interface Ordering {
  path: string;
  descending: boolean;
}

export interface ListQuery {
  filters: Filter[];
  ordering: Ordering[];
  search?: string;
}

export type QueryParams = Record<string, string | string[] | undefined>;

export const ORDERING_PARAM = 'ordering';
export const SEARCH_PARAM = 'search';
/** Read by the HTTP layer's negotiation, before any list sees the query. */
export const FORMAT_PARAM = 'format';

/** A query that names known fields with values of the wrong type. */
export class InvalidQueryError extends RecordError {
  declare readonly errors: Record<string, string[]>;

  constructor(errors: Record<string, string[]>) {
    super('invalid', 'Invalid query parameters.', namesAsSent(errors));
  }
}

/** A query that names what the list does not know, refused with STRICT_QUERY. */
export class UnknownQueryError extends RecordError {
  declare readonly errors: Record<string, string[]>;

  constructor(errors: Record<string, string[]>) {
    super('invalid', 'Unknown query parameters; nothing was read.', namesAsSent(errors));
  }
}

/** The parameters of a list's query that were not used, and why: by parameter name. */
export type IgnoredParams = Record<string, string[]>;

const IGNORED = Symbol('ignored query parameters');
type WithIgnored = { [IGNORED]?: IgnoredParams };

/** Marks a list's answer with the query parameters it ignored (shown on the HTML page). */
export function markIgnored<T extends object>(result: T, ignored: IgnoredParams): T {
  if (Object.keys(ignored).length > 0) (result as WithIgnored)[IGNORED] = ignored;
  return result;
}

/** The query parameters a list's answer ignored, if any. */
export function ignoredOf(result: unknown): IgnoredParams | undefined {
  return result !== null && typeof result === 'object'
    ? (result as WithIgnored)[IGNORED]
    : undefined;
}

/**
 * What a list's query names that the list does not know: a parameter that is neither a filter of
 * `paths` nor one of `known` (page, selection, format), an operator after a known path
 * (`price__foo`), a field of `ordering` that cannot be ordered by. Each is ignored by the list;
 * with STRICT_QUERY it is a 400 (UnknownQueryError) naming it. An unknown parameter's message
 * names the list's parameters (ordering, search, then `known` in its order) and the fields to
 * filter by, and first the closest of them when it looks like a slip (`pagesize` → `page_size`).
 */
export function unknownParams(
  params: QueryParams,
  paths: ReadonlyMap<string, ScalarType>,
  known: ReadonlySet<string>,
): IgnoredParams {
  const problems: IgnoredParams = {};
  const fields = [...paths.keys()].join(', ');
  const listParams = [ORDERING_PARAM, SEARCH_PARAM, ...known];
  const takes = `the list takes: ${listParams.join(', ')}; the fields to filter by: ${fields}.`;
  for (const name of Object.keys(params)) {
    if (known.has(name) || name === ORDERING_PARAM || name === SEARCH_PARAM || paths.has(name))
      continue;
    const split = name.lastIndexOf('__');
    const op = name.slice(split + 2);
    if (split > 0 && paths.has(name.slice(0, split))) {
      if (!OPS.has(op as FilterOp))
        problems[name] = [`Unknown operator "${op}"; operators: ${[...OPS].join(', ')}.`];
      continue;
    }
    const closest = closestName(name, [...listParams, ...paths.keys()]);
    problems[name] = [
      closest
        ? `Unknown parameter; did you mean "${closest}"? ${takes.charAt(0).toUpperCase()}${takes.slice(1)}`
        : `Unknown parameter; ${takes}`,
    ];
  }
  const ordering = last(params[ORDERING_PARAM]);
  for (const part of ordering?.split(',') ?? []) {
    const name = part.trim().replace(/^-/, '');
    // A descending sign with no field after it (`ordering=-`) names nothing: as unknown as a typo.
    if (name === '' && part.trim() === '-')
      (problems[ORDERING_PARAM] ??= []).push(`"-" names no field; ordering takes: ${fields}.`);
    else if (name !== '' && !paths.has(name))
      (problems[ORDERING_PARAM] ??= []).push(`Unknown field "${name}"; ordering takes: ${fields}.`);
  }
  return problems;
}

const OPS = new Set<FilterOp>(['in', 'lt', 'lte', 'gt', 'gte', 'contains']);
const RANGE_TYPES = new Set<ScalarType>(['integer', 'decimal', 'timestamp']);

export function parseListQuery(
  params: QueryParams,
  paths: ReadonlyMap<string, ScalarType>,
): ListQuery {
  const query: ListQuery = { filters: [], ordering: [] };
  const errors: Record<string, string[]> = {};

  for (const name of Object.keys(params)) {
    const raw = last(params[name]);
    if (raw === undefined) continue;
    if (name === ORDERING_PARAM) {
      query.ordering = parseOrdering(raw, paths);
      continue;
    }
    if (name === SEARCH_PARAM) {
      if (raw !== '') query.search = raw;
      continue;
    }
    const split = name.lastIndexOf('__');
    const suffix = split > 0 ? name.slice(split + 2) : '';
    const op: FilterOp = OPS.has(suffix as FilterOp) ? (suffix as FilterOp) : 'eq';
    const path = op === 'eq' ? name : name.slice(0, split);
    const type = paths.get(path);
    if (type === undefined) continue;

    const problem = checkOp(op, type);
    if (problem) {
      errors[name] = [problem];
      continue;
    }
    const items = op === 'in' ? raw.split(',') : [raw];
    const values: FilterValue[] = [];
    for (const item of items) {
      const value = op === 'contains' ? item : parseValue(item, type);
      if (value === undefined) {
        (errors[name] ??= []).push(`"${item}" is not a valid ${TYPE_NAMES[type]}.`);
      } else {
        values.push(value);
      }
    }
    if (!errors[name]) query.filters.push({ path, op, values });
  }

  if (Object.keys(errors).length > 0) throw new InvalidQueryError(errors);
  return query;
}

/** The value of a query parameter; of a repeated one, the last. */
export function last(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

function checkOp(op: FilterOp, type: ScalarType): string | undefined {
  if (op === 'contains' && type !== 'string') return 'contains applies to text fields only.';
  if ((op === 'lt' || op === 'lte' || op === 'gt' || op === 'gte') && !RANGE_TYPES.has(type)) {
    return `${op} applies to numbers, decimals and timestamps only.`;
  }
  return undefined;
}

function parseOrdering(raw: string, paths: ReadonlyMap<string, ScalarType>): Ordering[] {
  const seen = new Set<string>();
  const ordering: Ordering[] = [];
  for (const part of raw.split(',')) {
    const name = part.trim();
    const descending = name.startsWith('-');
    const path = descending ? name.slice(1) : name;
    if (!paths.has(path) || seen.has(path)) continue;
    seen.add(path);
    ordering.push({ path, descending });
  }
  return ordering;
}

const TYPE_NAMES: Record<ScalarType, string> = {
  integer: 'integer',
  string: 'string',
  boolean: 'boolean (true or false)',
  decimal: 'decimal number',
  timestamp: 'ISO 8601 timestamp',
};

const INTEGER = /^[+-]?\d{1,15}$/;
const DECIMAL = /^[+-]?(\d{1,20}(\.\d{0,20})?|\.\d{1,20})$/;
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** The value as it is bound to SQL, or undefined when it is not of the type. */
export function parseValue(raw: string, type: ScalarType): FilterValue | undefined {
  if (raw === 'null') return null;
  switch (type) {
    case 'string':
      return raw;
    case 'integer':
      return INTEGER.test(raw) ? Number(raw) : undefined;
    case 'decimal':
      return DECIMAL.test(raw) ? raw : undefined;
    case 'boolean':
      return parseBoolean(raw);
    case 'timestamp':
      return parseTimestamp(raw);
  }
}

export function parseBoolean(raw: string): boolean | undefined {
  switch (raw.toLowerCase()) {
    case 'true':
    case '1':
      return true;
    case 'false':
    case '0':
      return false;
    default:
      return undefined;
  }
}

/** An ISO 8601 date or date-time (UTC unless it has an offset) as the database stores it. */
export function parseTimestamp(raw: string): string | undefined {
  const m = TIMESTAMP.exec(raw.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
  // The calendar fields must exist as written (no 2024-02-30, no 24:00) before any offset applies.
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${frac.slice(0, 4)}${normalizeZone(zone)}`);
  if (Number.isNaN(ms)) return undefined;
  const utc = new Date(ms);
  // An offset can carry 0001-01-01 or 9999-12-31 out of the four-digit years the columns hold.
  const year = utc.getUTCFullYear();
  return year >= 1 && year <= 9999 ? toDatabaseTimestamp(utc) : undefined;
}

function normalizeZone(zone: string): string {
  if (zone.toUpperCase() === 'Z') return 'Z';
  return zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
}

/** `2024-05-01 12:00:00.123`, UTC: the form timestamps are stored and compared in. */
export function toDatabaseTimestamp(date: Date): string {
  return date.toISOString().slice(0, 23).replace('T', ' ');
}
