import { Field, ScalarField, ScalarType, WriteRules } from './fields';
import { PaginatorOptions } from './paginator';

/** How a collection is declared: the one description everything else is derived from. */
export interface ResourceDeclaration {
  /** Path of the collection, e.g. `/api/demo/marbles`. */
  path: string;
  /** Singular name: wraps request bodies (`{"marble": {...}}`) and names XML items. */
  singular: string;
  /** Plural name, e.g. `marbles`. */
  plural: string;
  /** Name used in messages, e.g. `Marble` in "Marble 7 not found." */
  label: string;
  /** Root table. Its primary key is the integer column `id`. */
  table: string;
  /** Fields in the order records are rendered. */
  fields: Field[];
  /** Bulk create, update_all and destroy_all. Default true. */
  bulk?: boolean;
  /** The `ping` and `child_ping` probes. Default false. */
  probes?: boolean;
  /**
   * This collection's paginator options, laid over the application's defaults; `null` disables
   * pagination (the index is a bare array). Default `{}`.
   */
  pagination?: Partial<PaginatorOptions> | null;
  /** Request examples of the OpenAPI document, chosen to succeed on the demo data. */
  examples: ResourceExamples;
}

/**
 * Examples for the OpenAPI document (and Swagger UI's "Try it out"): each must succeed when sent
 * as it is to a service holding the demo data, so create bodies use values no demo record has.
 */
export interface ResourceExamples {
  /** A record that exists: show, update and the actions use it. */
  id: number;
  /** Records that may be deleted: the first by destroy, the rest by destroy_all. */
  deletable: number[];
  /** A create body that passes validation and uniqueness. */
  create: Record<string, unknown>;
  /** A partial update, valid for any record. */
  update: Record<string, unknown>;
  /** An update_all body (collections with bulk routes). */
  updateAll?: Record<string, unknown>[];
}

/** A checked declaration, with its defaults filled in. */
export type ResourceDefinition = Required<ResourceDeclaration>;

/** A declaration that cannot work: one line naming the collection and what is wrong. */
export class DeclarationError extends Error {
  constructor(collection: string, problem: string) {
    super(`${collection}: ${problem}`);
    this.name = 'DeclarationError';
  }
}

/**
 * Fills in the defaults and checks the declaration as a whole, so that a mistake stops the start
 * with a line naming the collection and the field rather than failing in whatever derives from
 * it first (the validators, the SQL, the OpenAPI examples). What needs the table itself (columns,
 * types, foreign keys) is checked at start against the entity: src/collections-check.ts.
 */
export function defineResource(declaration: ResourceDeclaration): ResourceDefinition {
  const definition: ResourceDefinition = {
    bulk: true,
    probes: false,
    pagination: {},
    ...declaration,
  };
  const problem = declarationProblem(definition);
  if (problem) throw new DeclarationError(definition.plural, problem);
  return definition;
}

const LENGTH_RULES: (keyof WriteRules)[] = ['maxLength', 'notBlank', 'email'];
const RULES_OF: Record<ScalarType, (keyof WriteRules)[]> = {
  integer: ['min', 'max'],
  string: LENGTH_RULES,
  boolean: ['exclusiveWithin'],
  decimal: ['greaterThan', 'max'],
  timestamp: [],
};
const TYPED_RULES = new Set(Object.values(RULES_OF).flat());

/** The first thing wrong with a declaration, or undefined. */
export function declarationProblem(resource: ResourceDefinition): string | undefined {
  const names = new Set<string>();
  const byName = new Map<string, ScalarField>();
  for (const field of resource.fields) {
    if (names.has(field.name)) return `field ${field.name} is declared twice`;
    names.add(field.name);
    if (field.kind === 'scalar') byName.set(field.name, field);
    if (field.kind === 'collection' && field.writeAs) {
      if (names.has(field.writeAs))
        return `${field.name} is written as ${field.writeAs}, a field's name`;
      names.add(field.writeAs);
    }
  }
  if (byName.get('id')?.type !== 'integer') return 'no integer id field';
  for (const field of byName.values()) {
    const problem = fieldProblem(field, byName);
    if (problem) return `field ${field.name} ${problem}`;
  }
  return examplesProblem(resource, byName);
}

/** The length of a string's column, `varchar(255)`, unless it is TEXT. */
export const VARCHAR_LENGTH = 255;

const article = (type: ScalarType) => (type === 'integer' ? 'an' : 'a');

function fieldProblem(field: ScalarField, byName: Map<string, ScalarField>): string | undefined {
  const { type } = field;
  if (field.searchable && type !== 'string') {
    return `is searchable but is ${article(type)} ${type}, not a string`;
  }
  if (type === 'decimal' && field.scale === undefined) return 'is a decimal without a scale';
  if (type === 'decimal' && field.precision === undefined) {
    return 'is a decimal without a precision';
  }
  for (const [option, of] of [
    ['prefixKey', 'string'],
    ['text', 'string'],
    ['precision', 'decimal'],
    ['setOn', 'timestamp'],
  ] as const) {
    if (field[option] !== undefined && type !== of) {
      return `is ${article(type)} ${type}: ${option} does not apply`;
    }
  }
  if (field.setOn && field.write) return `is set on ${field.setOn}: no client writes it`;
  const write = field.write ?? {};
  if (type === 'string' && !field.text && (write.maxLength ?? 0) > VARCHAR_LENGTH) {
    return `may be ${write.maxLength} characters long, but its varchar(${VARCHAR_LENGTH}) column holds ${VARCHAR_LENGTH} (text: true makes it TEXT)`;
  }
  for (const rule of Object.keys(write) as (keyof WriteRules)[]) {
    if (
      write[rule] !== undefined &&
      TYPED_RULES.has(rule) &&
      !RULES_OF[field.type].includes(rule)
    ) {
      return `is ${article(type)} ${type}: ${rule} does not apply`;
    }
  }
  if (write.max !== undefined) {
    const problem = boundProblem(field, write.max);
    if (problem) return problem;
  }
  const group = write.exclusiveWithin?.field;
  if (group !== undefined && !byName.has(group)) {
    return `is exclusive within ${group}, which is not a field`;
  }
  return undefined;
}

/** Whether `max` is a bound of the field's type that its column can hold. */
function boundProblem(field: ScalarField, max: number | string): string | undefined {
  if (field.type === 'integer') {
    return Number.isSafeInteger(max) ? undefined : `has max ${String(max)}, not an integer`;
  }
  if (typeof max !== 'string' || !/^-?\d+(\.\d+)?$/.test(max)) {
    return `has max ${String(max)}, not a decimal string`;
  }
  const scale = field.scale ?? 0;
  const whole = (field.precision ?? 0) - scale;
  const largest = `${'9'.repeat(whole) || '0'}.${'9'.repeat(scale)}`;
  return Number(max) > Number(largest)
    ? `has max ${max}, more than decimal(${field.precision}, ${scale}) holds (${largest})`
    : undefined;
}

/** What a client may write: scalar fields with write rules, and collections' `writeAs` keys. */
function writableNames(resource: ResourceDefinition): Set<string> {
  return new Set(
    resource.fields.flatMap((f) =>
      f.kind === 'scalar'
        ? f.write
          ? [f.name]
          : []
        : f.kind === 'collection' && f.writeAs
          ? [f.writeAs]
          : [],
    ),
  );
}

function examplesProblem(
  resource: ResourceDefinition,
  byName: Map<string, ScalarField>,
): string | undefined {
  const { examples } = resource;
  if (resource.bulk && examples.updateAll === undefined) {
    return 'bulk update is enabled but examples.updateAll is missing';
  }
  if (!resource.bulk && examples.updateAll !== undefined) {
    return 'examples.updateAll is given but bulk routes are disabled (bulk: false)';
  }
  const deletable = resource.bulk ? 2 : 1;
  if (examples.deletable.length < deletable) {
    return resource.bulk
      ? 'examples.deletable needs a record for destroy and at least one for bulk destroy'
      : 'examples.deletable needs a record for destroy';
  }
  const writable = writableNames(resource);
  const bodies: [string, Record<string, unknown>][] = [
    ['examples.create', examples.create],
    ['examples.update', examples.update],
    ...(examples.updateAll ?? []).map(
      (body, i) => [`examples.updateAll[${i}]`, body] as [string, Record<string, unknown>],
    ),
  ];
  for (const [where, body] of bodies) {
    for (const name of Object.keys(body)) {
      if (name === 'id' && where.startsWith('examples.updateAll')) continue;
      if (!writable.has(name)) return `${where} sets ${name}, which is not a writable field`;
    }
  }
  for (const [name, field] of byName) {
    if (field.write?.required && !(name in examples.create)) {
      return `examples.create lacks ${name}, a required field`;
    }
  }
  const missingId = (examples.updateAll ?? []).findIndex((body) => typeof body.id !== 'number');
  if (missingId >= 0) return `examples.updateAll[${missingId}] has no id`;
  return undefined;
}

/** `build` run once per declaration, its result kept with it: for what is derived per collection. */
export function perResource<T>(
  build: (resource: ResourceDefinition) => T,
): (resource: ResourceDefinition) => T {
  const cache = new WeakMap<ResourceDefinition, T>();
  return (resource) => {
    let value = cache.get(resource);
    if (value === undefined) {
      value = build(resource);
      cache.set(resource, value);
    }
    return value;
  };
}

/**
 * The paths a client may filter and order by, with their types: the scalar fields, and the
 * fields of each to-one reference (`user.login`).
 */
export const pathsOf = perResource((resource) => {
  const paths = new Map<string, ScalarType>();
  for (const field of resource.fields) {
    if (field.kind === 'scalar') paths.set(field.name, field.type);
    if (field.kind === 'reference') {
      for (const sub of field.fields) paths.set(`${field.name}.${sub.name}`, sub.type);
    }
  }
  return paths as ReadonlyMap<string, ScalarType>;
});

/** The scalar fields of a collection. */
export function scalarFields(resource: ResourceDefinition): ScalarField[] {
  return resource.fields.filter((f): f is ScalarField => f.kind === 'scalar');
}
