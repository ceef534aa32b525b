/** Field name → messages: the `errors` member of an error body `{message, errors?}`. */
export type FieldErrors = Record<string, string[]>;

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
  ) {
    super(message);
  }

  static invalid(message: string, errors?: FieldErrors): RecordError {
    return new RecordError('invalid', message, errors);
  }

  /** 'Validation failed; nothing was saved.' with the errors by field. */
  static validation(errors: FieldErrors): RecordError {
    return new RecordError('invalid', 'Validation failed; nothing was saved.', errors);
  }

  static invalidItems(errors: (FieldErrors | null)[]): RecordError {
    return new RecordError('invalid-items', 'Some items are invalid; nothing was saved.', errors);
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
