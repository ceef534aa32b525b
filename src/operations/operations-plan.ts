/**
 * The body of `POST /api/operations` read into a plan, before anything runs: every operation's
 * shape checked (its `op`, `collection`, `id`, `record`, `ref`, `if_match`), and the references
 * between them (`{"ref": "<name>"}`) resolved to the operation that makes each. Every problem
 * found is listed at once, each named by its operation's place counted from 1; any problem is a
 * 400 and nothing runs. Free of Nest and of the database.
 */
import { RecordError } from '../rest/core/errors';
import { xmlRootOf } from '../rest/core/input/xml-input';
import { Precondition, parseIfMatch } from '../rest/core/preconditions';
import { isPlainObject, recordId } from '../rest/core/values';

/** Most operations in one request unless OPERATIONS_MAX says otherwise. */
export const DEFAULT_OPERATIONS_MAX = 100;

/** The standard ops; a collection's member actions (adjust_price, …) are ops too. */
export const STANDARD_OPS = ['create', 'update', 'destroy'] as const;

/** What the plan needs to know of a collection: its name, its actions, its foreign keys. */
export interface CollectionShape {
  plural: string;
  /** A record may come wrapped in it (`{"marble": {...}}`), as its own routes take it. */
  singular: string;
  /** The member actions (`adjust_price`): whether each takes a body. */
  actions: ReadonlyMap<string, { body: boolean }>;
  /** Body fields that hold the id of a record of another collection: field → that plural. */
  foreignKeys: ReadonlyMap<string, string>;
}

/** An id as an operation names it: a number, or the record a `create` before it named `ref`. */
export type IdOf = { id: number } | { ref: string; from: number };

export interface PlannedOperation {
  /** Its place, counted from 1. */
  place: number;
  op: string;
  collection: string;
  id?: IdOf;
  record?: unknown;
  /** Fields of `record` holding `{"ref": name}`: each filled with that record's id when it runs. */
  refFields: { field: string; ref: string; from: number }[];
  ref?: string;
  condition?: Precondition;
}

const KEYS = new Set(['op', 'collection', 'id', 'record', 'ref', 'if_match']);

/** The operations of the body: `{"operations": [...]}`, or XML's `<operations type="array">`. */
function listOf(body: unknown): unknown[] | undefined {
  if (Array.isArray(body)) {
    const root = xmlRootOf(body);
    return root === 'operations' || root === 'objects' ? body : undefined;
  }
  if (isPlainObject(body) && Object.keys(body).length === 1 && Array.isArray(body.operations)) {
    return body.operations;
  }
  return undefined;
}

const SHAPE =
  'The body must be {"operations": [...]}: a list of operations, each {op, collection, ...}.';

/** `{"ref": "name"}` (and only that): the name, else undefined. */
function refOf(value: unknown): string | undefined {
  if (!isPlainObject(value) || Object.keys(value).length !== 1) return undefined;
  return typeof value.ref === 'string' ? value.ref : undefined;
}

/**
 * The plan of `body` against the collections served (by plural name), at most `max` operations;
 * a 400 listing every problem otherwise.
 */
export function planOf(
  body: unknown,
  collections: ReadonlyMap<string, CollectionShape>,
  max: number,
): PlannedOperation[] {
  const list = listOf(body);
  if (!list) throw RecordError.invalid(SHAPE);
  if (list.length === 0)
    throw RecordError.invalid('The list of operations is empty: send at least one.');
  if (list.length > max) {
    throw RecordError.invalid(
      `${list.length} operations in one request; at most ${max} are accepted. Nothing was run.`,
    );
  }
  const problems: string[] = [];
  const refs = new Map<string, { place: number; collection: string }>();
  const plan: PlannedOperation[] = [];
  list.forEach((item, index) => {
    const place = index + 1;
    const say = (problem: string) => problems.push(`operation ${place} ${problem}`);
    if (!isPlainObject(item)) return say('is not an object');
    const unknown = Object.keys(item).filter((key) => !KEYS.has(key));
    if (unknown.length > 0)
      say(`has unknown ${unknown.length > 1 ? 'keys' : 'key'} ${unknown.join(', ')}`);
    const { op, collection: name } = item;
    const collection = typeof name === 'string' ? collections.get(name) : undefined;
    if (name === undefined) say('has no collection');
    else if (!collection) {
      say(
        `names no collection: ${JSON.stringify(name)} (known: ${[...collections.keys()].join(', ')})`,
      );
    }
    const standard = (STANDARD_OPS as readonly string[]).includes(op as string);
    const action = collection && typeof op === 'string' ? collection.actions.get(op) : undefined;
    if (op === undefined) say('has no op');
    else if (typeof op !== 'string' || (!standard && collection && !action)) {
      const known = [...STANDARD_OPS, ...(collection?.actions.keys() ?? [])];
      say(
        `has an unknown op ${JSON.stringify(op)} (known${collection ? ` for ${collection.plural}` : ''}: ${known.join(', ')})`,
      );
    }
    const planned: PlannedOperation = {
      place,
      op: String(op),
      collection: String(name),
      refFields: [],
    };
    // The id: every op but create.
    if (op === 'create') {
      if (item.id !== undefined) say('is a create: it takes no id');
    } else if (item.id === undefined) say('has no id');
    else {
      const ref = refOf(item.id);
      if (ref !== undefined) {
        const made = refs.get(ref);
        if (!made) say(`uses ref "${ref}" before any create names it`);
        else if (collection && made.collection !== collection.plural) {
          say(`uses ref "${ref}" of ${made.collection} as an id of ${collection.plural}`);
        } else planned.id = { ref, from: made.place };
      } else {
        const id = recordId(item.id);
        if (id === undefined)
          say(`has id ${JSON.stringify(item.id)}, not a positive integer or {"ref": "<name>"}`);
        else planned.id = { id };
      }
    }
    // The record: create, update, an action that takes a body.
    const takesRecord = op === 'create' || op === 'update' || action?.body === true;
    if (item.record !== undefined && !takesRecord && (standard || action)) {
      say(`is ${op === 'destroy' ? 'a destroy' : op}: it takes no record`);
    } else if (takesRecord && (op === 'create' || op === 'update') && item.record === undefined) {
      say('has no record');
    } else if (item.record !== undefined && !isPlainObject(item.record)) {
      say('has a record that is not an object');
    } else if (item.record !== undefined) {
      planned.record = item.record;
      if (collection) planned.refFields = refFieldsOf(item.record, collection, refs, say);
    }
    // The ref: create only, unique in the request.
    if (item.ref !== undefined) {
      if (op !== 'create') say('is not a create: only a create is named by ref');
      else if (typeof item.ref !== 'string' || item.ref === '' || item.ref.length > 255) {
        say('has a ref that is not a name (a string of 1 to 255 characters)');
      } else if (refs.has(item.ref)) {
        say(`names ref "${item.ref}", which operation ${refs.get(item.ref)!.place} already names`);
      } else {
        planned.ref = item.ref;
        if (collection) refs.set(item.ref, { place, collection: collection.plural });
      }
    }
    // if_match: an ETag, or several, as If-Match takes them.
    if (item.if_match !== undefined) {
      if (op === 'create') say('is a create: it takes no if_match');
      else if (typeof item.if_match !== 'string') say('has an if_match that is not a string');
      else {
        try {
          planned.condition = parseIfMatch(item.if_match);
        } catch {
          say(`has an if_match that is not an entity tag: ${JSON.stringify(item.if_match)}`);
        }
      }
    }
    plan.push(planned);
  });
  if (problems.length > 0) {
    throw RecordError.invalid(`Nothing was run: ${problems.join('; ')}.`);
  }
  return plan;
}

/**
 * The fields of a record (bare or wrapped in its singular name) whose value is `{"ref": name}`:
 * allowed only in a foreign key to the collection of the create that makes it.
 */
function refFieldsOf(
  record: Record<string, unknown>,
  collection: CollectionShape,
  refs: ReadonlyMap<string, { place: number; collection: string }>,
  say: (problem: string) => void,
): PlannedOperation['refFields'] {
  const found: PlannedOperation['refFields'] = [];
  const fields = unwrapped(record, collection.singular) ?? record;
  for (const [field, value] of Object.entries(fields)) {
    const ref = refOf(value);
    if (ref === undefined) continue;
    const target = collection.foreignKeys.get(field);
    const made = refs.get(ref);
    if (!target) say(`sets ${field} to a ref, but ${field} holds no record's id`);
    else if (!made) say(`uses ref "${ref}" before any create names it`);
    else if (made.collection !== target) {
      say(
        `sets ${field} to ref "${ref}", a record of ${made.collection}; ${field} holds an id of ${target}`,
      );
    } else found.push({ field, ref, from: made.place });
  }
  return found;
}

/** `record` with each ref field set to the id its create got (wrapped records stay wrapped). */
export function withIds(
  record: unknown,
  singular: string,
  refFields: PlannedOperation['refFields'],
  idOf: (ref: string) => number,
): unknown {
  if (refFields.length === 0 || !isPlainObject(record)) return record;
  const inner = unwrapped(record, singular);
  const fields = { ...(inner ?? record) };
  for (const { field, ref } of refFields) fields[field] = idOf(ref);
  return inner ? { [singular]: fields } : fields;
}

/** The record inside `{"<singular>": {...}}`, or undefined for a bare one (InputReader.unwrap). */
function unwrapped(record: Record<string, unknown>, singular: string) {
  const inner = record[singular];
  return Object.keys(record).length === 1 && isPlainObject(inner) ? inner : undefined;
}
