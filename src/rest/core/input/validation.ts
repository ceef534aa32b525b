/**
 * The class-validator DTO of a collection's writable fields, built from its declaration, so the
 * rules a write is checked against are the ones the declaration states.
 */
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
  arrayMaxSize,
  isArray,
  isBoolean,
  isEmail,
  isInt,
  isString,
  matches,
  max,
  maxLength,
  min,
  registerDecorator,
} from 'class-validator';
import { CollectionField, ScalarField } from '../fields';
import { namedClass, pascal } from '../names';
import { ResourceDefinition, perResource } from '../resource';
import { INT_MAX, compareDecimals, decimalPattern } from '../values';

type Decorator = PropertyDecorator;
type Class = new () => object;

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

/** Present and not null: absence and null are judged before class-validator runs. */
const present = (key: string) => ValidateIf((o: Record<string, unknown>) => o[key] != null);

/** Whether a decimal is within the field's bounds; anything but a decimal passes (see below). */
function withinBounds(field: ScalarField): (value: unknown) => boolean {
  const rules = field.write ?? {};
  const pattern = decimalPattern(field.scale ?? 2);
  return (value) => {
    // Not a decimal at all: the format rule reports it; bounds apply to decimals only.
    if (typeof value !== 'string' || !pattern.test(value)) return true;
    if (rules.greaterThan !== undefined && compareDecimals(value, rules.greaterThan) <= 0) {
      return false;
    }
    return rules.max === undefined || compareDecimals(value, String(rules.max)) <= 0;
  };
}

/** An integer's bounds: the declared ones, else an id's (from 1) or a 32-bit int's. */
function integerBounds(field: ScalarField): [least: number, most: number] {
  const rules = field.write ?? {};
  const most = typeof rules.max === 'number' ? rules.max : INT_MAX;
  return [rules.min ?? (field.references ? 1 : -INT_MAX), most];
}

function decimalWithin(field: ScalarField): Decorator {
  const rules = field.write ?? {};
  const validate = withinBounds(field);
  return (target, key) =>
    registerDecorator({
      name: 'decimalWithin',
      target: target.constructor,
      propertyName: key as string,
      validator: {
        validate,
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

/**
 * Why a value is no decimal of the field: too many decimal places for one written in digits
 * (`1.234`), else its form (`1e2`, `12,50`, ` 5`, `abc`), with an example of the right one.
 */
function decimalFormMessage(value: unknown, scale: number): string {
  const places = `at most ${scale} decimal places`;
  if (typeof value === 'string' && /^-?\d+\.\d+$/.test(value)) {
    return `Must be a decimal number with ${places}.`;
  }
  return `Must be a decimal number in plain digits, such as 12.5 (no exponent, comma or spaces), with ${places}.`;
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
    case 'integer': {
      const [least, most] = integerBounds(field);
      return [
        IsInt({ message: 'Must be an integer.' }),
        Min(least, { message: `Must be at least ${least}.` }),
        Max(most, { message: `Must be at most ${most}.` }),
      ];
    }
    case 'boolean':
      return [IsBoolean({ message: 'Must be true or false.' })];
    case 'decimal':
      return [
        Matches(decimalPattern(field.scale ?? 2), {
          message: (args: ValidationArguments) => decimalFormMessage(args.value, field.scale ?? 2),
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

/** A class `MarbleInput` whose properties, the writable fields' body keys, carry `decorators`. */
export function inputShape(
  resource: ResourceDefinition,
  decorators: (field: WritableField, key: string) => PropertyDecorator[],
): Class {
  const cls = namedClass(`${pascal(resource.singular)}Input`);
  for (const field of writableFields(resource)) {
    const key = inputKey(field);
    for (const decorate of decorators(field, key)) decorate(cls.prototype, key);
  }
  return cls;
}

/** The class-validator DTO of a collection's writable fields. */
export const inputClass = perResource((resource) =>
  inputShape(resource, (field, key) => [present(key), ...validators(field)]),
);

type Check = (value: unknown) => boolean;

/**
 * The rules `validators` states for a field, as plain tests: class-validator's own test of each
 * rule, with the same arguments, so a value passes here exactly when it passes there.
 */
function checks(field: WritableField): Check[] {
  if (field.kind === 'collection') {
    const id = (v: unknown) => isInt(v) && min(v, 1) && max(v, INT_MAX);
    return [isArray, (v) => arrayMaxSize(v, MAX_IDS), (v) => (v as unknown[]).every(id)];
  }
  const rules = field.write ?? {};
  switch (field.type) {
    case 'integer': {
      const [least, most] = integerBounds(field);
      return [isInt, (v) => min(v, least), (v) => max(v, most)];
    }
    case 'boolean':
      return [isBoolean];
    case 'decimal': {
      const pattern = decimalPattern(field.scale ?? 2);
      return [(v) => matches(v as string, pattern), withinBounds(field)];
    }
    default: {
      const list: Check[] = [isString];
      const longest = rules.maxLength;
      if (longest) list.push((v) => maxLength(v, longest));
      if (rules.notBlank) list.push((v) => matches(v as string, /\S/));
      if (rules.email) list.push((v) => isEmail(v, {}));
      return list;
    }
  }
}

/**
 * Whether values (body key → coerced value) pass every rule of the collection's DTO, compiled
 * once per collection: the common case, a valid body, then needs no class-validator run (which
 * costs far more per item, and a bulk create checks up to hundreds). Absent and null values are
 * judged elsewhere, as the DTO skips them. Only a body that fails goes through class-validator,
 * which words every problem.
 */
export const inputAccepted = perResource((resource) => {
  const rules = writableFields(resource).map((field) => [inputKey(field), checks(field)] as const);
  return (values: Record<string, unknown>): boolean => {
    for (const [key, tests] of rules) {
      const value = values[key];
      if (value === undefined || value === null) continue;
      for (const test of tests) if (!test(value)) return false;
    }
    return true;
  };
});
