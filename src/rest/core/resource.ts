import { Field, ScalarField } from './fields';
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

export function defineResource(declaration: ResourceDeclaration): ResourceDefinition {
  const definition: ResourceDefinition = {
    bulk: true,
    probes: false,
    pagination: {},
    ...declaration,
  };
  const names = new Set<string>();
  for (const field of definition.fields) {
    if (names.has(field.name)) throw new Error(`${definition.plural}: field ${field.name} twice`);
    names.add(field.name);
  }
  if (!definition.fields.some((f) => f.kind === 'scalar' && f.name === 'id')) {
    throw new Error(`${definition.plural}: no id field`);
  }
  return definition;
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

/** The scalar fields of a collection. */
export function scalarFields(resource: ResourceDefinition): ScalarField[] {
  return resource.fields.filter((f): f is ScalarField => f.kind === 'scalar');
}
