/** Field name → messages: the `errors` member of an error body `{message, errors?}`. */
export type FieldErrors = Record<string, string[]>;

/**
 * Marks errors keyed by names the client sent as they are, query parameters (`price__foo`,
 * `user.login`): XML keeps those names, where a field's name takes the XML bodies' dashes.
 */
export const NAMES_AS_SENT = Symbol('names as sent');

/** `errors`, marked as keyed by names as sent (NAMES_AS_SENT; not enumerable, not in JSON). */
export function namesAsSent<T extends object>(errors: T): T {
  Object.defineProperty(errors, NAMES_AS_SENT, { value: true, enumerable: false });
  return errors;
}

/**
 * Why a request about records cannot be served. The HTTP layer chooses the status for each; this
 * layer and the SQL layer only say what went wrong.
 */
export type Problem =
  /** The request itself is wrong: a malformed body or query, or values that fail validation. */
  | 'invalid'
  /** Some items of a bulk request are invalid; `errors` is aligned with the items. */
  | 'invalid-items'
  /** The record the request names does not exist. */
  | 'not-found'
  /** The record has changed since the version the request's If-Match names; nothing was written. */
  | 'precondition-failed'
  /** The write is larger than the database accepts in one transaction; nothing was written. */
  | 'too-large';

export class RecordError extends Error {
  constructor(
    readonly problem: Problem,
    message: string,
    readonly errors?: FieldErrors | (FieldErrors | null)[],
    /** Fields found wrong but not kept in `errors` (InputReader stops naming them: MAX_NAMED_FIELDS). */
    readonly unlisted = 0,
  ) {
    super(message);
  }

  static invalid(message: string, errors?: FieldErrors): RecordError {
    return new RecordError('invalid', message, errors);
  }

  /** 'Validation failed; nothing was saved.' with the errors by field. */
  static validation(errors: FieldErrors, unlisted = 0): RecordError {
    return new RecordError('invalid', 'Validation failed; nothing was saved.', errors, unlisted);
  }

  static invalidItems(errors: (FieldErrors | null)[], unlisted = 0): RecordError {
    return new RecordError(
      'invalid-items',
      'Some items are invalid; nothing was saved.',
      errors,
      unlisted,
    );
  }

  /** "Marble 7 has changed …": the If-Match precondition does not hold. */
  static preconditionFailed(label: string, id: number): RecordError {
    return new RecordError(
      'precondition-failed',
      `${label} ${id} has changed since the version If-Match names; nothing was changed.`,
    );
  }

  /** "Marble 7 not found." */
  static notFound(label: string, id: string | number): RecordError {
    return new RecordError('not-found', `${label} ${id} not found.`);
  }
}

/**
 * Most fields an error answer names: a body of 49,000 unknown keys is answered with 20 of them
 * and how many more, not with an answer five times its size (nor the time to build it).
 */
export const MAX_NAMED_FIELDS = 20;

/** An error's `errors` cut to MAX_NAMED_FIELDS fields, and how many fields were left out. */
export interface CappedErrors {
  errors: FieldErrors | (FieldErrors | null)[];
  /** Fields named in `errors`. */
  named: number;
  /** Fields left out. */
  more: number;
}

/**
 * `errors` naming at most MAX_NAMED_FIELDS fields, in their order; `unlisted` fields already left
 * out are added to `more`. A bulk answer's list (aligned with the items) keeps its items up to
 * the one where the count is reached: the items after it are left out of the list (a null
 * there would say an item was valid), their fields counted in `more`.
 */
export function capErrors(
  errors: FieldErrors | (FieldErrors | null)[],
  unlisted = 0,
): CappedErrors {
  let named = 0;
  let more = unlisted;
  const cut = (fields: FieldErrors): FieldErrors => {
    const keys = Object.keys(fields);
    if (named + keys.length <= MAX_NAMED_FIELDS) {
      named += keys.length;
      return fields;
    }
    const kept = keys.slice(0, Math.max(0, MAX_NAMED_FIELDS - named));
    named += kept.length;
    more += keys.length - kept.length;
    const capped = Object.fromEntries(kept.map((key) => [key, fields[key]]));
    return (fields as { [NAMES_AS_SENT]?: boolean })[NAMES_AS_SENT] ? namesAsSent(capped) : capped;
  };
  if (!Array.isArray(errors)) {
    const capped = cut(errors);
    return { errors: capped, named, more };
  }
  const items: (FieldErrors | null)[] = [];
  for (const item of errors) {
    if (named >= MAX_NAMED_FIELDS) {
      if (item) more += Object.keys(item).length;
      continue;
    }
    items.push(item && cut(item));
  }
  return { errors: items, named, more };
}

/** The message of an error answer whose `errors` names `named` fields and leaves `more` out. */
export function withMore(message: string, { named, more }: CappedErrors): string {
  if (more === 0) return message;
  return `${message} ${named === 1 ? 'One field is' : `${named} fields are`} listed, and ${more} more.`;
}
