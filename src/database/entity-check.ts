/**
 * A collection's declaration against the TypeORM entity of its table, where both state the same
 * fact: each field's column, its type, a string's length, a decimal's scale and bounds, whether a
 * written value may be NULL, the foreign keys and the joins. The migration creates the table and
 * test/e2e/schema-drift proves the entities agree with it, so agreeing with the entity is agreeing
 * with the database. Checked once, at start (src/collections-check.ts).
 */
import { EntityMetadata } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ScalarField, ScalarType } from '../rest/core/fields';
import { ResourceDefinition } from '../rest/core/resource';

/** Column types of each field type, as TypeORM names them (SQLite keeps decimals as text). */
const COLUMN_TYPES: Record<ScalarType, string[]> = {
  integer: ['int', 'integer', 'bigint', 'smallint', 'tinyint'],
  string: ['varchar', 'text', 'mediumtext', 'longtext', 'char'],
  boolean: ['boolean', 'bool', 'tinyint'],
  decimal: ['decimal', 'numeric', 'text'],
  timestamp: ['datetime', 'timestamp'],
};

/** Types TypeORM takes from the property's TypeScript type when a column names none. */
const DESIGN_TYPES = new Map<unknown, string>([
  [Number, 'int'],
  [String, 'varchar'],
  [Boolean, 'boolean'],
  [Date, 'datetime'],
]);

function typeName(column: ColumnMetadata): string {
  const type = column.type;
  return typeof type === 'string' ? type.toLowerCase() : (DESIGN_TYPES.get(type) ?? String(type));
}

/** Tables of the database, by name: every entity the DataSource knows. */
export type Tables = ReadonlyMap<string, EntityMetadata>;

/** The first disagreement between the declaration and the entity of its table, or undefined. */
export function entityProblem(
  resource: ResourceDefinition,
  entity: EntityMetadata,
  tables: Tables,
): string | undefined {
  if (entity.tableName !== resource.table) {
    return `the declaration's table is ${resource.table} but its entity's is ${entity.tableName}`;
  }
  for (const field of resource.fields) {
    let problem: string | undefined;
    if (field.kind === 'scalar') problem = scalarProblem(field, entity, tables);
    else if (field.kind === 'reference') {
      problem =
        columnMissing(entity, field.rootColumn) ??
        tableProblem(field.table, tables, [field.targetColumn], field.fields);
    } else {
      problem =
        tableProblem(field.through, tables, [field.ownerColumn, field.targetColumn], []) ??
        tableProblem(field.table, tables, [], field.fields);
    }
    if (problem) return `field ${field.name}: ${problem}`;
  }
  return undefined;
}

function columnOf(entity: EntityMetadata, name: string): ColumnMetadata | undefined {
  return entity.columns.find((c) => c.databaseName === name);
}

function columnMissing(entity: EntityMetadata, name: string): string | undefined {
  return columnOf(entity, name) ? undefined : `${entity.tableName} has no column ${name}`;
}

function tableProblem(
  table: string,
  tables: Tables,
  columns: string[],
  fields: ScalarField[],
): string | undefined {
  const entity = tables.get(table);
  if (!entity) return `${table} is no table of the database`;
  for (const column of [...columns, ...fields.map((f) => f.column)]) {
    const missing = columnMissing(entity, column);
    if (missing) return missing;
  }
  return undefined;
}

function scalarProblem(
  field: ScalarField,
  entity: EntityMetadata,
  tables: Tables,
): string | undefined {
  const column = columnOf(entity, field.column);
  if (!column) return `${entity.tableName} has no column ${field.column}`;
  const type = typeName(column);
  if (!COLUMN_TYPES[field.type].includes(type)) {
    return `declared ${field.type}, but its column ${field.column} is ${type}`;
  }
  const write = field.write;
  if (!write) return undefined;
  if (Boolean(write.nullable) !== column.isNullable) {
    return column.isNullable
      ? `its column may be NULL but the declaration refuses null (write.nullable)`
      : `the declaration accepts null (write.nullable) but its column is NOT NULL`;
  }
  if (field.type === 'string' && type === 'varchar') {
    const length = Number(column.length || 255);
    if (write.maxLength === undefined || write.maxLength > length) {
      return `its column holds ${length} characters but write.maxLength is ${write.maxLength ?? 'not set'}`;
    }
  }
  if (field.type === 'decimal' && type === 'decimal') {
    if (column.scale !== field.scale) {
      return `declared with scale ${field.scale}, but its column is decimal(${column.precision}, ${column.scale})`;
    }
    const whole = '9'.repeat((column.precision ?? 10) - (column.scale ?? 0));
    const largest = `${whole}.${'9'.repeat(column.scale ?? 0)}`;
    if (write.max === undefined || Number(write.max) > Number(largest)) {
      return `its column holds up to ${largest} but write.max is ${write.max ?? 'not set'}`;
    }
  }
  if (write.references !== undefined) {
    if (!tables.has(write.references))
      return `references ${write.references}, which is no table of the database`;
    const key = entity.foreignKeys.find((k) => k.columnNames.includes(field.column));
    if (key?.referencedTablePath !== write.references) {
      return `references ${write.references}, but its entity's foreign key ${key ? `points to ${key.referencedTablePath}` : 'is not declared'}`;
    }
  }
  if (write.unique) {
    const single = (names: string[]) => names.length === 1 && names[0] === field.column;
    const unique =
      entity.uniques.some((u) => single(u.columns.map((c) => c.databaseName))) ||
      entity.indices.some((i) => i.isUnique && single(i.columns.map((c) => c.databaseName)));
    if (!unique) return `is unique (write.unique) but its entity declares no unique key on it`;
  }
  return undefined;
}
