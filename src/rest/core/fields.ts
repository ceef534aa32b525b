/**
 * Field declarations: the one description of a collection that the serializers, the list-query
 * parser, the SQL adapter, the validators and the OpenAPI document are all derived from.
 */

export type ScalarType = 'integer' | 'string' | 'boolean' | 'decimal' | 'timestamp';

/** Rules that apply when a client writes the field. Absent means the field is read-only. */
export interface WriteRules {
  /** Must be present on create. Default false. */
  required?: boolean;
  /** Value stored on create when the client omits the field. */
  default?: string | number | boolean | null;
  /** `null` is accepted. Default false. */
  nullable?: boolean;
  /** Maximum length of a string. */
  maxLength?: number;
  /** A string must contain a non-blank character. Default false. */
  notBlank?: boolean;
  /** The string must be an e-mail address. Default false. */
  email?: boolean;
  /** Inclusive lower bound of an integer. */
  min?: number;
  /** Exclusive lower bound of a decimal, as a decimal string. */
  greaterThan?: string;
  /**
   * Inclusive upper bound: a number for an integer (`max: 100`), a decimal string for a decimal
   * (`max: '9999.99'`, which must fit the decimal's precision).
   */
  max?: number | string;
  /**
   * For a boolean: at most one record per value of another field has it true, and a record that
   * becomes true takes it from the other (an e-mail made primary unflags the user's old primary).
   */
  exclusiveWithin?: ExclusiveWithin;
}

export interface ExclusiveWithin {
  /** The field that groups the records, e.g. `user_id`. */
  field: string;
  /**
   * On MySQL, a generated column holding the group only where the flag is true, under a unique
   * index: the other record is found and locked through it, one row rather than the group's.
   */
  uniqueKey?: string;
}

export interface ScalarField {
  kind: 'scalar';
  /** Name in JSON, in query parameters and in request bodies. */
  name: string;
  type: ScalarType;
  /** Column in the collection's table. Defaults to `name`. */
  column: string;
  /** Sent in responses. False for foreign keys that are rendered as nested objects. */
  rendered: boolean;
  /** Searched by `?search=`. */
  searchable: boolean;
  /** Digits after the point, for decimals. */
  scale?: number;
  /** A foreign key: the value is the id of a row of this table, which must exist (`foreignKey`). */
  references?: string;
  /** Digits in all, for decimals: `decimal(precision, scale)` in the table. */
  precision?: number;
  /**
   * No two rows share the value: a unique key in the table, and a write of a taken value is
   * refused with a field error. Default false.
   */
  unique?: boolean;
  /**
   * The column may hold NULL although no client writes it (a writable field's column may when
   * `write.nullable` says so). Default false.
   */
  nullable?: boolean;
  /** A string stored as TEXT (64 KiB on MySQL) rather than `varchar(255)`. Default false. */
  text?: boolean;
  /**
   * A timestamp the service sets itself: on `create` only, or on every `write` (create, update,
   * the actions). Never written by a client.
   */
  setOn?: 'create' | 'write';
  /** A key of its table: unique and never NULL (the members of references declare it). */
  key?: boolean;
  /**
   * A text too long to index whole (never NULL), ordered through an index on its first `length`
   * characters: on MySQL the generated column `column` holds them, on SQLite the index is on
   * `substr(<its column>, 1, length)`.
   */
  prefixKey?: PrefixKey;
  write?: WriteRules;
}

export interface PrefixKey {
  column: string;
  length: number;
}

/** A to-one relation rendered as a nested object, e.g. a marble's `user`. */
export interface ReferenceField {
  kind: 'reference';
  name: string;
  /** Table of the referenced rows. */
  table: string;
  /** Join condition: `{target}.{targetColumn} = {root}.{rootColumn}`. */
  targetColumn: string;
  rootColumn: string;
  fields: ScalarField[];
  /** When there is no related row the key is left out of the record, else it is `null`. */
  omitWhenAbsent: boolean;
}

/** A to-many relation through a join table, loaded for a whole page in one query. */
export interface CollectionField {
  kind: 'collection';
  name: string;
  /** Join table and its two foreign keys. */
  through: string;
  ownerColumn: string;
  targetColumn: string;
  table: string;
  fields: ScalarField[];
  /** Loaded in index responses; when false, index responses carry `[]`. */
  inIndex: boolean;
  /** Body key by which a client sets the relation, e.g. `user_ids`. */
  writeAs?: string;
}

export type Field = ScalarField | ReferenceField | CollectionField;

export type ScalarOptions = Partial<Omit<ScalarField, 'kind' | 'name' | 'type'>>;

function scalar(type: ScalarType) {
  return (name: string, options: ScalarOptions = {}): ScalarField => ({
    kind: 'scalar',
    name,
    type,
    ...options,
    column: options.column ?? name,
    rendered: options.rendered ?? true,
    searchable: options.searchable ?? false,
  });
}

export const integer = scalar('integer');
export const string = scalar('string');
export const boolean = scalar('boolean');
export const decimal = scalar('decimal');
export const timestamp = scalar('timestamp');

/**
 * A foreign key: the id of a row of `table`, filterable under its own name, never rendered. A
 * nullable key (`write.nullable`, or `nullable` where no client writes it) is set to NULL when its
 * row goes (`ON DELETE SET NULL`); any other is deleted with it (`CASCADE`).
 */
export function foreignKey(
  name: string,
  table: string,
  write: WriteRules | undefined = {},
  options: ScalarOptions = {},
): ScalarField {
  return integer(name, {
    ...options,
    rendered: false,
    write,
    references: table,
  });
}

export function reference(
  name: string,
  options: Omit<ReferenceField, 'kind' | 'name' | 'omitWhenAbsent'> & { omitWhenAbsent?: boolean },
): ReferenceField {
  return { kind: 'reference', name, omitWhenAbsent: options.omitWhenAbsent ?? true, ...options };
}

export function collection(
  name: string,
  options: Omit<CollectionField, 'kind' | 'name'>,
): CollectionField {
  return { kind: 'collection', name, ...options };
}

/** Whether a scalar field's column may hold NULL. */
export function nullableColumn(field: ScalarField): boolean {
  return Boolean(field.nullable || field.write?.nullable);
}
