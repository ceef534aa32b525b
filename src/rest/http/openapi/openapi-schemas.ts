/**
 * OpenAPI 3.0 schemas built from a collection's declaration: the rendered record, the create and
 * update bodies (the writable fields, as core/input/validation.ts checks them), the bulk forms, the
 * envelope, and the error bodies every route shares.
 */
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { Field, ScalarField, ScalarType } from '../../core/fields';
import { pascal, singular } from '../../core/names';
import { PaginatorOptions } from '../../core/paginator';
import { ResourceDefinition } from '../../core/resource';
import { MAX_IDS, inputKey, writableFields } from '../../core/input/validation';

/** A schema, or a reference to one. */
export type Schema = SchemaObject & { $ref?: string };

/** The most items one bulk request may carry: more is a 400 before any is written. */
export const MAX_BULK_ITEMS = 1000;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const TYPES: Record<ScalarType, Schema> = {
  integer: { type: 'integer' },
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  decimal: { type: 'string', pattern: '^-?\\d+\\.\\d+$' },
  timestamp: { type: 'string', format: 'date-time' },
};

function scalar(field: ScalarField, forInput: boolean): Schema {
  const rules = field.write;
  const schema: Schema = { ...TYPES[field.type] };
  const notes: string[] = [];
  if (field.type === 'decimal') {
    if (forInput) schema.pattern = `^\\d+(\\.\\d{1,${field.scale ?? 2}})?$`;
    notes.push(`A decimal as a string, at most ${field.scale ?? 2} decimal places`);
    if (rules?.greaterThan !== undefined) notes.push(`greater than ${rules.greaterThan}`);
    if (rules?.max !== undefined) notes.push(`at most ${rules.max}`);
  }
  if (!forInput && !rules) schema.readOnly = true;
  if (rules?.nullable || (!forInput && field.nullable)) schema.nullable = true;
  if (forInput && rules) {
    if (rules.maxLength) schema.maxLength = rules.maxLength;
    if (rules.notBlank) schema.pattern = '\\S';
    if (rules.min !== undefined) schema.minimum = rules.min;
    if (field.type === 'integer' && rules.max !== undefined) schema.maximum = Number(rules.max);
    if (rules.email) schema.format = 'email';
    if (rules.default !== undefined) schema.default = rules.default;
    if (field.unique) notes.push('Unique');
    if (field.references) notes.push(`The id of an existing ${singular(field.references)}`);
  }
  if (notes.length) schema.description = `${notes.join('; ')}.`;
  return schema;
}

/** `UserSummary`, `GenreSummary`: the nested objects records carry. */
export function summaryName(table: string): string {
  return `${pascal(singular(table))}Summary`;
}

/** The summary schema of a nested reference (`{id, login}`). */
export function summarySchema(fields: ScalarField[], table: string): Schema {
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, scalar(f, false)])),
    required: fields.map((f) => f.name),
    additionalProperties: false,
    xml: { name: singular(table) },
  };
}

/**
 * Whether every record has the reference `field`: it follows a column of the record itself that
 * a record cannot be without (a required, non-nullable foreign key, as an e-mail's `user_id`).
 */
function alwaysPresent(resource: ResourceDefinition, field: Field): boolean {
  if (field.kind !== 'reference') return false;
  const column = resource.fields.find((f) => f.kind === 'scalar' && f.name === field.rootColumn);
  return column?.kind === 'scalar' && !!column.write?.required && !column.write.nullable;
}

/**
 * A rendered record: every field, required unless the declaration omits it when absent (a
 * reference every record has is required all the same).
 */
export function recordSchema(resource: ResourceDefinition): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const field of resource.fields) {
    if (field.kind === 'scalar') {
      if (!field.rendered) continue;
      properties[field.name] = scalar(field, false);
    } else if (field.kind === 'reference') {
      const summary = ref(summaryName(field.table));
      if (alwaysPresent(resource, field)) {
        properties[field.name] = summary;
        required.push(field.name);
        continue;
      }
      properties[field.name] = field.omitWhenAbsent
        ? { allOf: [summary], description: 'Left out when there is none.' }
        : { allOf: [summary], nullable: true };
    } else {
      properties[field.name] = {
        type: 'array',
        items: ref(summaryName(field.table)),
        xml: { wrapped: true },
        ...(field.inIndex ? {} : { description: 'Always empty in index responses.' }),
      };
    }
    if (field.kind !== 'reference' || !field.omitWhenAbsent) required.push(field.name);
  }
  return {
    type: 'object',
    properties,
    required,
    additionalProperties: false,
    xml: { name: 'hash' },
  };
}

/**
 * A create (`mode` create: required fields required) or update body (nothing required: PUT and
 * PATCH on a record are both partial). Read-only fields sent back are ignored.
 */
export function inputSchema(resource: ResourceDefinition, mode: 'create' | 'update'): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const field of writableFields(resource)) {
    const key = inputKey(field);
    if (field.kind === 'collection') {
      properties[key] = {
        type: 'array',
        items: { type: 'integer' },
        maxItems: MAX_IDS,
        description: `Ids of existing ${field.table}; replaces the set.`,
        xml: { wrapped: true },
      };
      continue;
    }
    properties[key] = scalar(field, true);
    if (mode === 'create' && field.write?.required) required.push(key);
  }
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    description:
      `${mode === 'create' ? 'A new' : 'Changes to a'} ${resource.singular.replace(/_/g, ' ')}` +
      `${mode === 'update' ? ': only the fields sent change' : ''}. It may also come wrapped, ` +
      `as {"${resource.singular}": {…}}; read-only fields sent back are ignored.`,
    xml: { name: resource.singular },
  };
}

/** An item of update_all: an update with the id of the record it changes. */
export function bulkUpdateItemSchema(resource: ResourceDefinition): Schema {
  const update = inputSchema(resource, 'update');
  return {
    ...update,
    properties: { id: { type: 'integer', minimum: 1 }, ...update.properties },
    required: ['id'],
    description: `Changes to the ${resource.singular.replace(/_/g, ' ')} with this id.`,
  };
}

/** `{message, records}`: the answer of a bulk write. */
export function bulkResultSchema(resource: ResourceDefinition): Schema {
  return {
    type: 'object',
    properties: {
      message: { type: 'string' },
      records: { type: 'array', items: ref(pascal(resource.singular)), xml: { wrapped: true } },
    },
    required: ['message', 'records'],
    xml: { name: 'hash' },
  };
}

/** The envelope of an index page; `count` and `total_pages` only when the total is counted. */
export function pageSchema(resource: ResourceDefinition, paginator: PaginatorOptions): Schema {
  const counted = paginator.pageTotalCount;
  return {
    type: 'object',
    properties: {
      ...(counted ? { count: { type: 'integer', minimum: 0 } } : {}),
      page: { type: 'integer', minimum: 1 },
      page_size: { type: 'integer', minimum: 1 },
      ...(counted ? { total_pages: { type: 'integer', minimum: 0 } } : {}),
      next: { type: 'string', format: 'uri', description: 'Left out on the last page.' },
      previous: { type: 'string', format: 'uri', description: 'Left out on the first page.' },
      results: { type: 'array', items: ref(pascal(resource.singular)), xml: { wrapped: true } },
    },
    required: [...(counted ? ['count'] : []), 'page', 'page_size']
      .concat(counted ? ['total_pages'] : [])
      .concat('results'),
    additionalProperties: false,
    xml: { name: 'hash' },
  };
}

const FIELD_ERRORS: Schema = {
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'string' } },
  description: 'Messages by field name.',
};

/** Schemas every document holds, whatever its collections. */
export const SHARED_SCHEMAS: Record<string, Schema> = {
  Error: {
    type: 'object',
    properties: { message: { type: 'string' }, errors: FIELD_ERRORS },
    required: ['message'],
    additionalProperties: false,
    xml: { name: 'hash' },
  },
  BulkError: {
    type: 'object',
    properties: {
      message: { type: 'string' },
      errors: {
        type: 'array',
        items: { ...FIELD_ERRORS, nullable: true },
        description: 'One entry per item sent, in order: null for a valid item.',
        xml: { wrapped: true },
      },
    },
    required: ['message', 'errors'],
    additionalProperties: false,
    xml: { name: 'hash' },
  },
  Message: {
    type: 'object',
    properties: { message: { type: 'string' } },
    required: ['message'],
    additionalProperties: false,
    xml: { name: 'hash' },
  },
};
