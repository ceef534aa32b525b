/**
 * A table is written once, as a declaration; its TypeORM entity is derived from it here, an
 * `EntitySchema` per table, shaped for the database in use. The entities run no query (the SQL
 * layer writes its own); they describe the schema, so that TypeORM can compare it with the
 * migrated database (test/e2e/schema-drift) and `npm run migration:generate` can write the
 * migration of what is new (src/migration-generate.ts).
 *
 * What a declaration implies for its table:
 * - `id`, an auto-increment integer primary key; a collection's records also carry `version`
 *   (int, default 1), their ETag.
 * - Column types: integer `int`; string `varchar(255)`, or `text` with `text: true`; boolean
 *   `boolean`; decimal `decimal(precision, scale)`; timestamp `datetime(3)`. A column is NOT NULL
 *   unless `write.nullable` (or `nullable`, for a field no client writes) says otherwise.
 * - An integer or boolean `write.default` is the column's default too (string and decimal defaults
 *   stay the service's: MySQL gives a TEXT column no default).
 * - `unique`: a unique key, named as TypeORM names a unique column's (`UQ_<hash>`).
 * - A foreign key (`foreignKey`): `ON DELETE SET NULL` when nullable, else `CASCADE`, under the
 *   index `idx_<table>_<column>` unless it is unique (its unique key serves).
 * - A paginated collection indexes every other column a page can be ordered by
 *   (`idx_<table>_<column>`): not the id, unique columns, foreign keys, nor TEXT, which orders
 *   through its `prefixKey`.
 * - A to-many field (`collection`) owns its join table: the pair of ids is the key, both sides
 *   `CASCADE`, the second side indexed.
 *
 * Where the two databases differ (the shipped migrations create them so):
 * - SQLite keeps decimals as text (its NUMERIC affinity would turn '12.50' into 12.5), ordered
 *   and indexed by `CAST(<column> AS REAL)`, an expression TypeORM can neither declare nor read:
 *   such an index is left out of TypeORM's comparison (the drift test compares it itself).
 * - Timestamps: `datetime(3)` on MySQL, `datetime` on SQLite (which keeps the text).
 * - Boolean defaults: SQLite keeps them as the migration wrote them (`false`).
 * - A prefix key is a virtual generated column under an index on MySQL (no TEXT is indexed
 *   whole there), an index on `substr(<column>, 1, length)` on SQLite.
 * - `exclusiveWithin` with a `uniqueKey`: on MySQL a stored generated column holding the group
 *   where the flag is true, under a unique index; on SQLite a partial unique index.
 * - MySQL foreign keys have no ON UPDATE clause (the server's default).
 */
import { DefaultNamingStrategy, EntitySchema, EntitySchemaOptions } from 'typeorm';
import type { EntitySchemaColumnOptions } from 'typeorm/entity-schema/EntitySchemaColumnOptions';
import type { EntitySchemaIndexOptions } from 'typeorm/entity-schema/EntitySchemaIndexOptions';
import type { EntitySchemaRelationOptions } from 'typeorm/entity-schema/EntitySchemaRelationOptions';
import { CollectionField, Field, ScalarField, nullableColumn } from '../core/fields';
import { ResourceDefinition, VARCHAR_LENGTH } from '../core/resource';
import { Dialect } from '../db/sql-database';

/** A table as declared: a collection's (`tableOf`) or an internal one (`defineTable`). */
export interface TableDefinition {
  table: string;
  /** Its scalar fields are its columns; its to-many fields bring their join tables. */
  fields: readonly Field[];
  /** The rows carry a `version` (a collection's records). */
  versioned: boolean;
  /** Every column a page can be ordered by has an index (a paginated collection). */
  ordered: boolean;
}

/** An internal table (seeded, no routes): its columns, as field declarations. */
export function defineTable(table: string, fields: Field[]): TableDefinition {
  return { table, fields, versioned: false, ordered: false };
}

/** The table of a collection. */
export function tableOf(resource: ResourceDefinition): TableDefinition {
  return {
    table: resource.table,
    fields: resource.fields,
    versioned: true,
    ordered: resource.pagination !== null,
  };
}

/** The shape an entity takes on a database. */
type Build = (dialect: Dialect) => EntitySchemaOptions<unknown>;

/** Every entity derived so far, by table name, with how it is built. */
const entities = new Map<string, { schema: EntitySchema; build: Build }>();
let current: Dialect = 'mysql';

/**
 * The entity of a table, built by `build` for the database in use: the same object for the same
 * name, so that a table used by several modules is registered once.
 */
export function dialectEntity(name: string, build: Build): EntitySchema {
  let entry = entities.get(name);
  if (!entry) {
    entry = { schema: new EntitySchema(build(current)), build };
    entities.set(name, entry);
  } else {
    entry.build = build;
    entry.schema.options = build(current);
  }
  return entry.schema;
}

/**
 * Gives every entity the shape of `dialect`. Called where the DataSource options are built:
 * TypeORM reads the entities' options when the DataSource initializes.
 */
export function shapeEntitiesFor(dialect: Dialect): void {
  current = dialect;
  for (const entry of entities.values()) entry.schema.options = entry.build(dialect);
}

/** The entities of a table: its own and its join tables'. */
export function entitiesOf(definition: TableDefinition): EntitySchema[] {
  return [
    dialectEntity(definition.table, (dialect) => tableOptions(definition, dialect)),
    ...joinTables(definition).map((join) =>
      dialectEntity(join.through, (dialect) => joinTableOptions(definition.table, join, dialect)),
    ),
  ];
}

function joinTables(definition: TableDefinition): CollectionField[] {
  return definition.fields.filter((f): f is CollectionField => f.kind === 'collection');
}

function scalarsOf(definition: TableDefinition): ScalarField[] {
  return definition.fields.filter((f): f is ScalarField => f.kind === 'scalar');
}

/** Whether a page can be ordered by the column through an index of its own. */
export function orderedColumn(field: ScalarField): boolean {
  return (
    field.column !== 'id' && !field.unique && !field.references && !field.text && !field.prefixKey
  );
}

const UNIQUE_NAMES = new DefaultNamingStrategy();

type Columns = Record<string, EntitySchemaColumnOptions>;

function columnOptions(field: ScalarField, dialect: Dialect): EntitySchemaColumnOptions {
  const nullable = nullableColumn(field);
  const fallback = field.write?.default;
  const mysql = dialect === 'mysql';
  switch (field.type) {
    case 'integer':
      return {
        type: 'int',
        nullable,
        ...(typeof fallback === 'number' ? { default: fallback } : {}),
      };
    case 'boolean':
      return typeof fallback === 'boolean'
        ? { type: 'boolean', nullable, default: mysql ? fallback : () => String(fallback) }
        : { type: 'boolean', nullable };
    case 'decimal':
      return mysql
        ? { type: 'decimal', precision: field.precision, scale: field.scale, nullable }
        : { type: 'text', nullable };
    case 'timestamp':
      return mysql ? { type: 'datetime', precision: 3, nullable } : { type: 'datetime', nullable };
    default:
      return field.text
        ? { type: 'text', nullable }
        : { type: 'varchar', length: VARCHAR_LENGTH, nullable };
  }
}

/** A foreign key's relation, as TypeORM declares one: many to one, on its column. */
function relationTo(
  table: string,
  column: string,
  nullable: boolean,
  dialect: Dialect,
): EntitySchemaRelationOptions {
  return {
    type: 'many-to-one',
    target: table,
    joinColumn: { name: column },
    onDelete: nullable ? 'SET NULL' : 'CASCADE',
    // No ON UPDATE clause on MySQL: TypeORM writes, and compares, none for an empty action.
    ...(dialect === 'mysql' ? { onUpdate: '' as EntitySchemaRelationOptions['onUpdate'] } : {}),
  };
}

/** The relation of a foreign key column: its name without `_id` (`user_id`: `user`). */
const relationName = (column: string) =>
  column.endsWith('_id') ? column.slice(0, -3) : `${column}_row`;

function tableOptions(definition: TableDefinition, dialect: Dialect): EntitySchemaOptions<unknown> {
  const { table } = definition;
  const mysql = dialect === 'mysql';
  const columns: Columns = {};
  const relations: Record<string, EntitySchemaRelationOptions> = {};
  const indices: EntitySchemaIndexOptions[] = [];
  const uniques: { name: string; columns: string[] }[] = [];
  const index = (column: string, extra: Partial<EntitySchemaIndexOptions> = {}) =>
    indices.push({ name: `idx_${table}_${column}`, columns: [column], ...extra });
  const byName = new Map(scalarsOf(definition).map((f) => [f.name, f]));

  for (const field of scalarsOf(definition)) {
    const { column } = field;
    if (column === 'id') {
      columns.id = { type: 'int', primary: true, generated: 'increment' };
      continue;
    }
    columns[column] = columnOptions(field, dialect);
    // Named as a migration's `isUnique` column names it, on both databases (left unnamed, the
    // key of an entity would be an `IDX_…` index on MySQL).
    if (field.unique)
      uniques.push({ name: UNIQUE_NAMES.uniqueConstraintName(table, [column]), columns: [column] });
    if (field.references) {
      relations[relationName(column)] = relationTo(
        field.references,
        column,
        nullableColumn(field),
        dialect,
      );
      if (!field.unique) index(column);
    }
    if (definition.ordered && orderedColumn(field)) {
      // SQLite orders decimals by their numeric value, through an index on that expression.
      index(column, field.type === 'decimal' && !mysql ? { synchronize: false } : {});
    }
    const prefix = field.prefixKey;
    if (prefix) {
      if (mysql) {
        columns[prefix.column] = {
          type: 'varchar',
          length: prefix.length,
          nullable: true,
          generatedType: 'VIRTUAL',
          asExpression: `LEFT(\`${column}\`, ${prefix.length})`,
          insert: false,
          update: false,
        };
        index(prefix.column);
      } else {
        indices.push({
          name: `idx_${table}_${prefix.column}`,
          columns: [column],
          synchronize: false,
        });
      }
    }
    const exclusive = field.write?.exclusiveWithin;
    if (exclusive?.uniqueKey) {
      const group = byName.get(exclusive.field)!.column;
      const name = `uq_${table}_${exclusive.uniqueKey}`;
      if (mysql) {
        columns[exclusive.uniqueKey] = {
          type: 'int',
          nullable: true,
          generatedType: 'STORED',
          asExpression: `CASE WHEN \`${column}\` = 1 THEN \`${group}\` END`,
          insert: false,
          update: false,
        };
        indices.push({ name, columns: [exclusive.uniqueKey], unique: true });
      } else {
        indices.push({ name, columns: [group], unique: true, where: `"${column}" = 1` });
      }
    }
  }
  if (definition.versioned) columns.version = { type: 'int', default: 1 };
  return { name: table, tableName: table, columns, relations, indices, uniques };
}

/** A join table: the pair of ids is its key, both sides deleted with either. */
function joinTableOptions(
  owner: string,
  join: CollectionField,
  dialect: Dialect,
): EntitySchemaOptions<unknown> {
  const sides: [string, string][] = [
    [join.ownerColumn, owner],
    [join.targetColumn, join.table],
  ];
  return {
    name: join.through,
    tableName: join.through,
    columns: Object.fromEntries(sides.map(([column]) => [column, { type: 'int', primary: true }])),
    relations: Object.fromEntries(
      sides.map(([column, table]) => [
        relationName(column),
        relationTo(table, column, false, dialect),
      ]),
    ),
    // The key leads with the owner's id: only the other side needs an index.
    indices: [{ name: `idx_${join.through}_${join.targetColumn}`, columns: [join.targetColumn] }],
  };
}
