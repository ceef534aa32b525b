/**
 * OpenAPI schemas built from a collection's declaration: its input (the writable fields, as the
 * validator of core/validation.ts checks them) and its rendered record.
 */
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { ScalarField, ScalarType } from '../core/fields';
import { namedClass, pascal, singular } from '../core/names';
import { perResource } from '../core/resource';
import { inputShape } from '../core/validation';

type Class = new () => object;

const OPENAPI_TYPES: Record<ScalarType, ApiPropertyOptions> = {
  integer: { type: 'integer' },
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  decimal: { type: 'string', format: 'decimal', example: '12.5' },
  timestamp: { type: 'string', format: 'date-time' },
};

function scalarDoc(field: ScalarField, forInput: boolean): ApiPropertyOptions {
  const rules = field.write;
  const doc: Record<string, unknown> = { ...OPENAPI_TYPES[field.type] };
  if (!forInput && !rules) doc.readOnly = true;
  if (rules?.nullable || (!forInput && field.name === 'picture')) doc.nullable = true;
  if (rules?.maxLength) doc.maxLength = rules.maxLength;
  if (rules?.min !== undefined) doc.minimum = rules.min;
  if (rules?.email) doc.format = 'email';
  if (rules?.default !== undefined && rules.default !== null) doc.default = rules.default;
  if (field.type === 'decimal') {
    const bounds = [
      rules?.greaterThan !== undefined ? `> ${rules.greaterThan}` : '',
      rules?.max !== undefined ? `<= ${rules.max}` : '',
    ].filter(Boolean);
    doc.description = `Decimal as a string, at most ${field.scale ?? 2} decimal places${bounds.length ? ` (${bounds.join(', ')})` : ''}.`;
  }
  if (rules?.unique) doc.description = `${doc.description ?? ''} Unique.`.trim();
  if (rules?.references) doc.description = `Id of an existing ${rules.references} row.`;
  doc.required = forInput ? !!rules?.required : true;
  return doc as ApiPropertyOptions;
}

/** The OpenAPI schema of a collection's input: its writable fields. */
export const inputSchema = perResource((resource) =>
  inputShape(resource, (field) => [
    ApiProperty(
      (field.kind === 'collection'
        ? { type: 'integer', isArray: true, required: false, description: `Ids of ${field.table}.` }
        : scalarDoc(field, true)) as ApiPropertyOptions,
    ),
  ]),
);

/** The OpenAPI schema of a rendered record. */
export const recordSchema = perResource((resource) => {
  const cls = namedClass(pascal(resource.singular));
  for (const field of resource.fields) {
    if (field.kind === 'scalar') {
      if (field.rendered) ApiProperty(scalarDoc(field, false))(cls.prototype, field.name);
      continue;
    }
    const nested = summaryClass(field.table, field.fields);
    const doc: ApiPropertyOptions =
      field.kind === 'reference'
        ? {
            type: () => nested,
            readOnly: true,
            required: !field.omitWhenAbsent,
            description: field.omitWhenAbsent ? 'Left out when there is none.' : undefined,
          }
        : {
            type: () => nested,
            isArray: true,
            readOnly: true,
            description: field.inIndex ? undefined : 'Always empty in index responses.',
          };
    ApiProperty(doc)(cls.prototype, field.name);
  }
  return cls;
});

const summaries = new Map<string, Class>();

function summaryClass(table: string, fields: ScalarField[]): Class {
  const name = `${pascal(singular(table))}Summary`;
  let cls = summaries.get(name);
  if (!cls) {
    cls = namedClass(name);
    for (const f of fields) ApiProperty(scalarDoc(f, false))(cls.prototype, f.name);
    summaries.set(name, cls);
  }
  return cls;
}
