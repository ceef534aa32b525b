/**
 * The source of a migration that brings the schema from what the migrations so far create to
 * what the declarations describe (`npm run migration:generate`, src/migration-generate.ts): new
 * tables, and new columns of existing tables, written with ./migrations/table-helpers.ts so that
 * one migration serves both databases. The migration is plain data once written: a later change
 * of the declaration changes no migration already written, as with Django's `makemigrations`.
 * What it cannot write (a changed or dropped column, a prefix key, an `exclusiveWithin` key) it
 * names instead, for a migration written by hand.
 */
import { CollectionField, ScalarField, nullableColumn } from '../rest/core/fields';
import { TableDefinition, orderedColumn } from '../rest/sql/tables';

/** What the migrations so far create: each table with its columns. */
export type ExistingTables = ReadonlyMap<string, ReadonlySet<string>>;

export interface MigrationSource {
  /** The statements of `up` and `down`, one per line, indented as in the file. */
  up: string[];
  down: string[];
  /** The tables it creates or changes. */
  tables: string[];
  /** What it could not write: each a sentence. */
  problems: string[];
}

/** A value as the source writes it: `'label'`, `['a', 'b']`, `0`. */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  return typeof value === 'string' ? `'${value.replace(/'/g, "\\'")}'` : String(value);
}

function extras(entries: Record<string, unknown>): string {
  const given = Object.entries(entries).filter(([, v]) => v !== undefined);
  if (given.length === 0) return '';
  return `, { ${given.map(([k, v]) => `${k}: ${literal(v)}`).join(', ')} }`;
}

/** The `c.<kind>(...)` of a column (see table-helpers' `columnTypes`). */
function columnCall(field: ScalarField): string {
  const nullable = nullableColumn(field) || undefined;
  const fallback = field.write?.default;
  const name = literal(field.column);
  const unique = field.unique || undefined;
  switch (field.type) {
    case 'integer':
      return `c.int(${name}${extras({
        isNullable: nullable,
        isUnique: unique,
        default: typeof fallback === 'number' ? fallback : undefined,
      })})`;
    case 'boolean': {
      // c.bool's default is false: another default, or none, is said.
      const given = extras({
        isNullable: nullable,
        isUnique: unique,
        default: fallback || undefined,
      });
      if (typeof fallback === 'boolean') return `c.bool(${name}${given})`;
      return `c.bool(${name}, { ${given ? `${given.slice(4, -2)}, ` : ''}default: undefined })`;
    }
    case 'decimal':
      return `c.decimal(${name}, ${field.precision}, ${field.scale}${extras({
        isNullable: nullable ? undefined : false,
        isUnique: unique,
      })})`;
    case 'timestamp':
      return `c.timestamp(${name}${extras({ isNullable: nullable, isUnique: unique })})`;
    default:
      return `c.${field.text ? 'longText' : 'text'}(${name}${extras({
        isNullable: nullable,
        isUnique: unique,
      })})`;
  }
}

function scalars(definition: TableDefinition): ScalarField[] {
  return definition.fields.filter((f): f is ScalarField => f.kind === 'scalar');
}

/** Parts of a field that only a migration written by hand can create. */
function unwritable(table: string, field: ScalarField): string[] {
  const where = `${table}.${field.column}`;
  return [
    ...(field.prefixKey ? [`${where}: its prefix key (see migration 1764000000000)`] : []),
    ...(field.write?.exclusiveWithin?.uniqueKey
      ? [`${where}: its exclusiveWithin key (see migration 1732000000000)`]
      : []),
  ];
}

const onDelete = (field: ScalarField) => (nullableColumn(field) ? 'SET NULL' : 'CASCADE');

/** The migration from `existing` to `definitions`. */
export function migrationSource(
  definitions: readonly TableDefinition[],
  existing: ExistingTables,
): MigrationSource {
  const up: string[] = [];
  const down: string[] = [];
  const tables: string[] = [];
  const problems: string[] = [];
  const declared = new Set<string>();
  for (const definition of definitions) {
    const { table } = definition;
    declared.add(table);
    const columns = existing.get(table);
    const fields = scalars(definition).filter((f) => f.column !== 'id');
    if (!columns) {
      tables.push(table);
      up.push(...createTable(definition, fields));
      down.unshift(`await queryRunner.dropTable(${literal(table)});`);
    } else {
      const added = fields.filter((f) => !columns.has(f.column));
      if (added.length > 0) tables.push(table);
      for (const field of added) {
        up.push(...addColumn(definition, field));
        down.unshift(`await queryRunner.dropColumn(${literal(table)}, ${literal(field.column)});`);
      }
      const named = new Set(['id', 'version', ...fields.map((f) => f.column)]);
      for (const f of fields) {
        if (f.prefixKey) named.add(f.prefixKey.column);
        if (f.write?.exclusiveWithin?.uniqueKey) named.add(f.write.exclusiveWithin.uniqueKey);
      }
      for (const column of columns) {
        if (!named.has(column)) problems.push(`${table}.${column} is no longer declared`);
      }
    }
    for (const field of fields.filter((f) => !columns?.has(f.column))) {
      problems.push(...unwritable(table, field));
    }
    for (const join of definition.fields.filter(
      (f): f is CollectionField => f.kind === 'collection',
    )) {
      declared.add(join.through);
      if (existing.has(join.through)) continue;
      tables.push(join.through);
      up.push(...createJoinTable(table, join));
      down.unshift(`await queryRunner.dropTable(${literal(join.through)});`);
    }
  }
  return { up, down, tables, problems };
}

function createTable(definition: TableDefinition, fields: ScalarField[]): string[] {
  const { table } = definition;
  const columns = [
    'c.id()',
    ...fields.map(columnCall),
    ...(definition.versioned ? ['c.version()'] : []),
  ];
  const references = fields
    .filter((f) => f.references)
    .map((f) => `[${literal(f.column)}, ${literal(f.references)}, ${literal(onDelete(f))}]`);
  const fkIndexed = fields.filter((f) => f.references && !f.unique).map((f) => f.column);
  const ordered = definition.ordered ? fields.filter(orderedColumn) : [];
  const indexed = [
    ...fkIndexed,
    ...ordered.filter((f) => f.type !== 'decimal').map((f) => f.column),
  ];
  const byValue = ordered.filter((f) => f.type === 'decimal').map((f) => f.column);
  const allFkIndexed = fkIndexed.length === references.length;
  const keys = extras({
    indexed: allFkIndexed && indexed.length === fkIndexed.length ? undefined : indexed,
    indexedByValue: byValue.length ? byValue : undefined,
  });
  return [
    `await createTable(`,
    `  queryRunner,`,
    `  ${literal(table)},`,
    `  [`,
    ...columns.map((c) => `    ${c},`),
    `  ],`,
    `  [${references.join(', ')}],`,
    ...(keys ? [`  ${keys.slice(2)},`] : []),
    `);`,
  ];
}

function createJoinTable(owner: string, join: CollectionField): string[] {
  const [mine, theirs] = [literal(join.ownerColumn), literal(join.targetColumn)];
  return [
    `await createTable(`,
    `  queryRunner,`,
    `  ${literal(join.through)},`,
    `  [c.int(${mine}, { isPrimary: true }), c.int(${theirs}, { isPrimary: true })],`,
    `  [[${mine}, ${literal(owner)}, 'CASCADE'], [${theirs}, ${literal(join.table)}, 'CASCADE']],`,
    `  { indexed: [${theirs}] },`,
    `);`,
  ];
}

function addColumn(definition: TableDefinition, field: ScalarField): string[] {
  const table = literal(definition.table);
  const column = literal(field.column);
  const lines = [`await queryRunner.addColumn(${table}, new TableColumn(${columnCall(field)}));`];
  if (field.references) {
    lines.push(
      `await queryRunner.createForeignKey(${table}, foreignKey(${column}, ${literal(field.references)}, ${literal(onDelete(field))}));`,
    );
  }
  const index = `new TableIndex({ name: ${literal(`idx_${definition.table}_${field.column}`)}, columnNames: [${column}] })`;
  if ((field.references && !field.unique) || (definition.ordered && orderedColumn(field))) {
    lines.push(
      field.type === 'decimal' && !field.references
        ? `await createValueIndex(queryRunner, ${table}, ${column});`
        : `await queryRunner.createIndex(${table}, ${index});`,
    );
  }
  return lines;
}

/** The whole file of a migration class `name` (e.g. `Tags1800000000000`). */
export function migrationFile(name: string, source: MigrationSource, helpers: string): string {
  const body = [...source.up, ...source.down].join('\n');
  const used = ['columnTypes', 'createTable', 'createValueIndex', 'foreignKey'].filter((h) =>
    new RegExp(`\\b${h}\\(`).test(body),
  );
  const typeorm = ['MigrationInterface', 'QueryRunner', 'TableColumn', 'TableIndex'].filter(
    (t) => t === 'MigrationInterface' || t === 'QueryRunner' || body.includes(`new ${t}(`),
  );
  const needsTypes = /\bc\./.test(source.up.join('\n'));
  if (needsTypes && !used.includes('columnTypes')) used.unshift('columnTypes');
  const indent = (lines: string[]) => lines.map((l) => `    ${l}`).join('\n');
  return [
    `import { ${typeorm.join(', ')} } from 'typeorm';`,
    `import { ${used.sort().join(', ')} } from '${helpers}';`,
    '',
    `/** Generated by \`npm run migration:generate\` from the declarations: ${source.tables.join(', ')}. */`,
    `export class ${name} implements MigrationInterface {`,
    `  name = '${name}';`,
    '',
    '  async up(queryRunner: QueryRunner): Promise<void> {',
    ...(needsTypes ? ['    const c = await columnTypes(queryRunner);'] : []),
    indent(source.up),
    '  }',
    '',
    '  async down(queryRunner: QueryRunner): Promise<void> {',
    indent(source.down),
    '  }',
    '}',
    '',
  ].join('\n');
}
