/**
 * Field selection: `only=id,name` keeps the named fields of each record, `except=c` drops them,
 * `fields=` is another name for `only`. Fields keep their declared order; a nested reference is a
 * field like any other and is kept or dropped whole.
 */
import { InvalidQueryError, QueryParams, last } from './list-query';
import { ResourceDefinition, perResource } from './resource';

export const ONLY_PARAM = 'only';
export const EXCEPT_PARAM = 'except';
/** Another name for `only` (the name @dataui/crud and JSON:API clients know). */
export const FIELDS_PARAM = 'fields';

/** The fields a request keeps, in declared order; `key` names the combination. */
export interface Selection {
  readonly fields: readonly string[];
  readonly key: string;
}

/** The names a client may select: the fields of a rendered record, in order. */
export const selectableFields = perResource((resource: ResourceDefinition): string[] =>
  resource.fields.filter((f) => f.kind !== 'scalar' || f.rendered).map((f) => f.name),
);

/**
 * The selection a query asks for, or undefined for whole records. An unknown name is a 400 that
 * lists the allowed names.
 */
export function parseSelection(
  params: QueryParams,
  resource: ResourceDefinition,
): Selection | undefined {
  const only = last(params[ONLY_PARAM]) ?? last(params[FIELDS_PARAM]);
  const except = last(params[EXCEPT_PARAM]);
  if (!only && !except) return undefined;
  const allowed = selectableFields(resource);
  const errors: Record<string, string[]> = {};
  const names = (param: string, raw: string | undefined): Set<string> | undefined => {
    if (!raw) return undefined;
    const set = new Set<string>();
    for (const part of raw.split(',')) {
      const name = part.trim();
      if (name === '') continue;
      if (allowed.includes(name)) set.add(name);
      else (errors[param] ??= []).push(`Unknown field "${name}"; allowed: ${allowed.join(', ')}.`);
    }
    return set;
  };
  const kept = names(params[ONLY_PARAM] !== undefined ? ONLY_PARAM : FIELDS_PARAM, only);
  const dropped = names(EXCEPT_PARAM, except);
  if (Object.keys(errors).length > 0) throw new InvalidQueryError(errors);
  const fields = allowed.filter((name) => (!kept || kept.has(name)) && !dropped?.has(name));
  if (fields.length === allowed.length) return undefined;
  return { fields, key: fields.join(',') };
}

/** A copy of each record with only the selected fields (for records a write hands back). */
export function project<T extends Record<string, unknown>>(
  records: T[],
  selection: Selection | undefined,
): T[] {
  if (!selection) return records;
  return records.map((record) => {
    const out: Record<string, unknown> = {};
    for (const name of selection.fields) if (name in record) out[name] = record[name];
    return out as T;
  });
}
