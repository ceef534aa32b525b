import { Field } from './fields';

/** Everything the REST layer needs to know about one collection. */
export interface ResourceDefinition {
  /** Singular name: wraps request bodies (`{"marble": {...}}`) and names XML items. */
  singular: string;
  /** Path segment and plural name, e.g. `marbles`. */
  plural: string;
  /** Name used in messages, e.g. `Marble` in "Marble 7 not found." */
  label: string;
  /** Root table. Its primary key is the integer column `id`. */
  table: string;
  /** Fields in the order records are rendered. */
  fields: Field[];
}

export function defineResource(definition: ResourceDefinition): ResourceDefinition {
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
