/**
 * Classes built from a collection's declaration: the input DTO, carrying class-validator rules,
 * and the record and input schemas for the OpenAPI document, carrying @nestjs/swagger metadata.
 * Both come from the same field list, so the validator, the serializer and the documentation
 * cannot drift apart.
 */
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsInt,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidationArguments,
  registerDecorator,
} from 'class-validator';
import { CollectionField, ScalarField, ScalarType } from './fields';
import { ResourceDefinition } from './resource';
import { compareDecimals, decimalPattern } from './values';

type Decorator = PropertyDecorator;
type Class = new () => object;

/** Largest value of the 32-bit integer columns ids and counts live in. */
export const INT_MAX = 2147483647;

/** Most ids accepted in one list field (genre_ids, user_ids). */
export const MAX_IDS = 1000;

/** What a client may send for one writable field. */
export type WritableField = ScalarField | CollectionField;

export function writableFields(resource: ResourceDefinition): WritableField[] {
  return resource.fields.filter(
    (f): f is WritableField =>
      (f.kind === 'scalar' && f.write !== undefined) || (f.kind === 'collection' && !!f.writeAs),
  );
}

/** Body key of a writable field: its name, or `writeAs` for a to-many relation. */
export function inputKey(field: WritableField): string {
  return field.kind === 'collection' ? field.writeAs! : field.name;
}

function pascal(name: string): string {
  return name.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase());
}

function named(name: string): Class {
  const cls = class {};
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

/** Present and not null: absence and null are judged before class-validator runs. */
const present = (key: string) => ValidateIf((o: Record<string, unknown>) => o[key] != null);

function decimalWithin(field: ScalarField): Decorator {
  const rules = field.write ?? {};
  return (target, key) =>
    registerDecorator({
      name: 'decimalWithin',
      target: target.constructor,
      propertyName: key as string,
      validator: {
        validate(value: unknown) {
          // Not a decimal at all: the format rule reports it; bounds apply to decimals only.
          if (typeof value !== 'string' || !decimalPattern(field.scale ?? 2).test(value))
            return true;
          if (rules.greaterThan !== undefined && compareDecimals(value, rules.greaterThan) <= 0) {
            return false;
          }
          return rules.max === undefined || compareDecimals(value, rules.max) <= 0;
        },
        defaultMessage(args: ValidationArguments) {
          const bounds = [
            rules.greaterThan !== undefined ? `greater than ${rules.greaterThan}` : '',
            rules.max !== undefined ? `at most ${rules.max}` : '',
          ].filter(Boolean);
          return `Must be ${bounds.join(' and ')}; got ${String(args.value)}.`;
        },
      },
    });
}

function validators(field: WritableField): Decorator[] {
  if (field.kind === 'collection') {
    return [
      IsArray({ message: 'Must be a list of ids.' }),
      ArrayMaxSize(MAX_IDS, { message: `Must have at most ${MAX_IDS} ids.` }),
      IsInt({ each: true, message: 'Must be a list of ids.' }),
      Min(1, { each: true, message: 'Must be a list of ids.' }),
      Max(INT_MAX, { each: true, message: 'Must be a list of ids.' }),
    ];
  }
  const rules = field.write ?? {};
  switch (field.type) {
    case 'integer':
      return [
        IsInt({ message: 'Must be an integer.' }),
        Min(rules.min ?? (rules.references ? 1 : -INT_MAX), {
          message: `Must be at least ${rules.min ?? (rules.references ? 1 : -INT_MAX)}.`,
        }),
        Max(INT_MAX, { message: `Must be at most ${INT_MAX}.` }),
      ];
    case 'boolean':
      return [IsBoolean({ message: 'Must be true or false.' })];
    case 'decimal':
      return [
        Matches(decimalPattern(field.scale ?? 2), {
          message: `Must be a decimal number with at most ${field.scale ?? 2} decimal places.`,
        }),
        decimalWithin(field),
      ];
    default: {
      const list: Decorator[] = [IsString({ message: 'Must be a string.' })];
      if (rules.maxLength) {
        list.push(
          MaxLength(rules.maxLength, {
            message: `Must be at most ${rules.maxLength} characters long.`,
          }),
        );
      }
      if (rules.notBlank) list.push(Matches(/\S/, { message: 'May not be blank.' }));
      if (rules.email) list.push(IsEmail({}, { message: 'Must be a valid e-mail address.' }));
      return list;
    }
  }
}

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

const inputs = new WeakMap<ResourceDefinition, Class>();
const records = new WeakMap<ResourceDefinition, Class>();

/** The class-validator DTO of a collection's writable fields (also its OpenAPI input schema). */
export function inputClass(resource: ResourceDefinition): Class {
  let cls = inputs.get(resource);
  if (cls) return cls;
  cls = named(`${pascal(resource.singular)}Input`);
  for (const field of writableFields(resource)) {
    const key = inputKey(field);
    for (const decorate of [present(key), ...validators(field)]) decorate(cls.prototype, key);
    const doc =
      field.kind === 'collection'
        ? { type: 'integer', isArray: true, required: false, description: `Ids of ${field.table}.` }
        : scalarDoc(field, true);
    ApiProperty(doc as ApiPropertyOptions)(cls.prototype, key);
  }
  inputs.set(resource, cls);
  return cls;
}

/** The OpenAPI schema of a rendered record. */
export function recordClass(resource: ResourceDefinition): Class {
  let cls = records.get(resource);
  if (cls) return cls;
  cls = named(pascal(resource.singular));
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
  records.set(resource, cls);
  return cls;
}

const summaries = new Map<string, Class>();

function summaryClass(table: string, fields: ScalarField[]): Class {
  const name = `${pascal(table.replace(/s$/, ''))}Summary`;
  let cls = summaries.get(name);
  if (!cls) {
    cls = named(name);
    for (const f of fields) ApiProperty(scalarDoc(f, false))(cls.prototype, f.name);
    summaries.set(name, cls);
  }
  return cls;
}
