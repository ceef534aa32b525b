/**
 * From a request body to the values of a write: unwrap `{"marble": {...}}`, ignore
 * read-only fields, reject unknown ones, coerce numeric strings and boolean spellings, then run
 * the class-validator DTO. Every problem is reported at once, keyed by field.
 */
import { validate } from 'class-validator';
import { FieldErrors, MAX_NAMED_FIELDS } from '../errors';
import { ResourceDefinition } from '../resource';
import { WritableField, inputAccepted, inputClass, inputKey, writableFields } from './validation';
import { canonicalDecimal, isPlainObject } from '../values';

export type Values = Record<string, unknown>;

export type InputMode = 'create' | 'update';

export interface InputResult {
  values: Values;
  errors?: FieldErrors;
  /**
   * Unknown fields not named in `errors`: past MAX_NAMED_FIELDS of them, a body's unknown keys are
   * counted, not listed (an answer names no more anyway, and 49,000 of them would cost every
   * other request the time to list them).
   */
  unlisted?: number;
}

export class InputReader {
  private readonly writable = new Map<string, WritableField>();
  private readonly readOnly = new Set<string>();
  private readonly dto: new () => object;
  private readonly accepted: (values: Values) => boolean;
  private readonly unknownField: string;
  /**
   * Unknown fields named at most: room is left for every writable field's own error, so that a
   * body's real problems are never crowded out of the answer by keys it should not have.
   */
  private readonly unknownNamed: number;

  constructor(private readonly resource: ResourceDefinition) {
    this.unknownField = `Unknown field; ${resource.singular} has no such field.`;
    for (const field of writableFields(resource)) this.writable.set(inputKey(field), field);
    for (const field of resource.fields) {
      if (!this.writable.has(field.name)) this.readOnly.add(field.name);
    }
    this.dto = inputClass(resource);
    this.unknownNamed = Math.max(1, MAX_NAMED_FIELDS - this.writable.size);
    this.accepted = inputAccepted(resource);
  }

  /** `{"marble": {...}}` → `{...}`; anything else as it is. */
  unwrap(body: unknown): unknown {
    if (isPlainObject(body)) {
      const keys = Object.keys(body);
      const inner = body[this.resource.singular];
      if (keys.length === 1 && isPlainObject(inner)) return inner;
    }
    return body;
  }

  /** Values of one record. On create, required fields are enforced and defaults filled in. */
  async read(body: Record<string, unknown>, mode: InputMode): Promise<InputResult> {
    const values: Values = {};
    // No prototype: a field named `__proto__` is reported like any other unknown field.
    const errors: FieldErrors = Object.create(null);
    let unknown = 0;
    let unlisted = 0;
    for (const key in body) {
      if (!Object.hasOwn(body, key)) continue;
      const raw = body[key];
      const field = this.writable.get(key);
      if (!field) {
        if (this.readOnly.has(key)) continue;
        if (++unknown <= this.unknownNamed) errors[key] = [this.unknownField];
        else unlisted++;
        continue;
      }
      if (raw === undefined) continue;
      if (raw === null) {
        const nullable = field.kind === 'scalar' && field.write?.nullable;
        if (!nullable) errors[key] = ['This field may not be null.'];
        values[key] = null;
        continue;
      }
      values[key] = coerce(field, raw);
      if (typeof values[key] === 'string') {
        const problem = textProblem(values[key] as string);
        if (problem) errors[key] = [problem];
      }
    }
    if (mode === 'create') {
      for (const [key, field] of this.writable) {
        if (key in values || errors[key]) continue;
        const rules = field.kind === 'scalar' ? field.write : undefined;
        if (rules?.required) errors[key] = ['This field is required.'];
        else if (rules?.default !== undefined) values[key] = rules.default;
      }
    }
    const judged = Object.keys(errors).length > 0;
    // A body every rule accepts needs no class-validator run (the usual case).
    if (!judged && this.accepted(values)) return { values };
    const candidate: Values = Object.assign(new this.dto(), values);
    for (const key of Object.keys(errors)) {
      if (this.writable.has(key)) candidate[key] = undefined; // already judged
    }
    const failures = await validate(candidate, {
      forbidUnknownValues: false,
      stopAtFirstError: true,
    });
    for (const failure of failures) {
      if (errors[failure.property]) continue;
      errors[failure.property] = Object.values(failure.constraints ?? {});
    }
    if (unlisted > 0) return { values, errors, unlisted };
    return Object.keys(errors).length > 0 ? { values, errors } : { values };
  }
}

/**
 * Characters XML 1.0 cannot carry (§2.2): C0 controls other than tab, line feed and carriage
 * return, and U+FFFE / U+FFFF. Refused in every text, from JSON and XML alike, so that no stored
 * value reads differently in the two formats.
 */
// eslint-disable-next-line no-control-regex -- these characters are exactly what is being matched
const NOT_XML = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;

/** What is wrong with a text value, if anything: a lone surrogate, or a character XML cannot carry. */
function textProblem(text: string): string | undefined {
  if (!text.isWellFormed()) return 'Must be valid Unicode text.';
  const bad = NOT_XML.exec(text);
  if (!bad) return undefined;
  const code = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  return `May not contain U+${code}: XML 1.0 cannot carry it.`;
}

const INTEGER = /^-?\d{1,16}$/;

function coerce(field: WritableField, raw: unknown): unknown {
  if (field.kind === 'collection') {
    return Array.isArray(raw)
      ? raw.map((id) => (typeof id === 'string' && INTEGER.test(id) ? Number(id) : id))
      : raw;
  }
  switch (field.type) {
    case 'integer':
      return typeof raw === 'string' && INTEGER.test(raw) ? Number(raw) : raw;
    case 'boolean':
      return toBoolean(raw);
    case 'decimal':
      if (typeof raw === 'number' && Number.isFinite(raw)) return canonicalDecimal(String(raw));
      return typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw) ? canonicalDecimal(raw) : raw;
    default:
      return raw;
  }
}

function toBoolean(raw: unknown): unknown {
  switch (typeof raw === 'string' ? raw.toLowerCase() : raw) {
    case true:
    case 1:
    case 'true':
    case '1':
      return true;
    case false:
    case 0:
    case 'false':
    case '0':
      return false;
    default:
      return raw;
  }
}
