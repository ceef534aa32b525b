/**
 * Two places where TypeORM reads a schema otherwise than the migrations create it; each is
 * adjusted once, for the database in use. (What differs between the databases themselves is
 * derived with the entities: src/rest/sql/tables.ts.)
 *
 * - SQLite: integer columns are `int`, but for the AUTOINCREMENT ids, which SQLite requires to be
 *   `integer`. TypeORM's SQLite driver spells every entity integer `integer` (it renames `int`),
 *   yet creates a migration's `int` as written, and would then see a difference in every integer
 *   column. Both have INTEGER affinity: the difference is in spelling only.
 * - MySQL: TypeORM's migration runner creates its `typeorm_metadata` table as soon as an entity
 *   declares a generated column, to record the expressions of generated columns TypeORM itself
 *   creates. The migrations own the schema and the table is not part of it: it stays out. (The
 *   drift test gives TypeORM the record it needs while it compares.)
 */
import { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { RdbmsSchemaBuilder } from 'typeorm/schema-builder/RdbmsSchemaBuilder';

let adjusted = false;

/** Applies both adjustments (each concerns one database only), once per process. */
export function adjustTypeOrm(): void {
  if (adjusted) return;
  adjusted = true;
  const normalizeType = BetterSqlite3Driver.prototype.normalizeType;
  BetterSqlite3Driver.prototype.normalizeType = function (column) {
    const type = normalizeType.call(this, column);
    const entityColumn = column instanceof ColumnMetadata && !column.isGenerated;
    return type === 'integer' && entityColumn ? 'int' : type;
  };
  const builder = RdbmsSchemaBuilder.prototype as unknown as { hasGeneratedColumns(): boolean };
  if (typeof builder.hasGeneratedColumns !== 'function') {
    throw new Error('TypeORM changed: RdbmsSchemaBuilder.hasGeneratedColumns is gone.');
  }
  builder.hasGeneratedColumns = () => false;
}
