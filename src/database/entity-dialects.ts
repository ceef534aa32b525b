/**
 * Where the schema genuinely differs between the databases, in one place.
 *
 * The entities describe the schema that migrations/1732000000000-init.ts creates on MySQL;
 * `entitiesFor` gives their TypeORM metadata the shape of the database the DataSource options
 * are built for. TypeORM reads decorator metadata when a DataSource initializes, so the shape is
 * set each time options are built (a process uses one database anyway).
 * test/e2e/schema-drift.e2e-spec.ts proves that entities and migration agree on both.
 * (Unique constraints are `@Unique`s with the names the migration's got: a column's
 * `unique: true` would be named `UQ_…` on SQLite but `IDX_…` on MySQL.)
 *
 * SQLite:
 * - Decimals are text: SQLite's NUMERIC affinity would turn '12.50' into the double 12.5.
 * - MySQL's MEDIUMBLOB (stored responses) is a BLOB.
 * - Timestamps are `datetime` without a precision: SQLite has no date type (the stored text
 *   keeps the milliseconds).
 * - Boolean defaults are the keyword `false` the migration wrote: SQLite keeps a default as
 *   written, and TypeORM would spell it `0`. Both store 0.
 * - One primary e-mail per user is a partial unique index on `user_id`. MySQL has no partial
 *   indexes, hence its generated column `primary_user_id`, which SQLite does not have.
 * - Decimals are ordered by their numeric value, `CAST(price AS REAL)`, and indexed by that
 *   expression, which TypeORM can neither declare nor read: the index is left out of its
 *   synchronization, and the drift test compares its definition itself. So is the index on
 *   `substr(description, 1, 100)`, where MySQL has the generated column `description_key`.
 * - Integer columns are `int`, but for the AUTOINCREMENT ids, which SQLite requires to be
 *   `integer`. TypeORM's SQLite driver spells them all `integer` (it renames `int`, and gives a
 *   foreign key the type of the id it references), yet creates a migration's `int` as written.
 *   Both have INTEGER affinity: the difference is in spelling only.
 *
 * MySQL:
 * - Text columns have a binary NO PAD collation, chosen by the migration once connected:
 *   `utf8mb4_nopad_bin` on MariaDB, `utf8mb4_0900_bin` on MySQL 8. The entities do not name it:
 *   the name depends on the server, unknown when options are built, and TypeORM neither uses
 *   collations at run time nor compares them, so the drift test checks them itself.
 * - Foreign keys have no ON UPDATE clause, as the migration creates them: the server's default,
 *   which MariaDB reports as RESTRICT and MySQL 8 as NO ACTION (the same thing in InnoDB).
 * - TypeORM's migration runner creates its `typeorm_metadata` table as soon as an entity
 *   declares a generated column, to record the expressions of generated columns TypeORM itself
 *   creates. The migrations own the schema and the table is not part of it: it stays out. (The
 *   drift test gives TypeORM the record it needs while it compares.)
 */
import { ColumnOptions, getMetadataArgsStorage, RelationOptions } from 'typeorm';
import { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { RdbmsSchemaBuilder } from 'typeorm/schema-builder/RdbmsSchemaBuilder';
import { DatabaseConfig } from '../config/configuration';

type Dialect = DatabaseConfig['type'];

/** The arguments of one decorator, as TypeORM keeps them until a DataSource reads them. */
type Args = { target: unknown } & Record<string, unknown>;

/** Decorator arguments that differ by database, with their fields for each (null: left out). */
interface Variant {
  list: Args[];
  args: Args;
  fields: Record<Dialect, Args | null>;
}

/** The SQLite form of MySQL's indexes on generated columns and on decimals, by name. */
const SQLITE_INDEXES: Record<string, Partial<Args>> = {
  uq_emails_primary_user_id: { columns: ['user_id'], where: '"is_primary" = 1' },
  idx_marbles_price: { synchronize: false },
  idx_marbles_description_key: { columns: ['description'], synchronize: false },
};

/** No ON UPDATE clause: TypeORM writes none, and compares none, for an empty action. */
const SERVER_DEFAULT = '' as RelationOptions['onUpdate'];

const variants: Variant[] = [];
/** Decorator arguments already looked at: each is collected once, before any shaping. */
const seen = new WeakSet<Args>();

/**
 * Gives the metadata of every entity declared so far the shape of `dialect`. The feature modules
 * import their entities before TypeORM's options are built, so all are declared by then.
 */
export function shapeEntitiesFor(dialect: Dialect): void {
  collect();
  for (const variant of variants) shape(variant, variant.fields[dialect]);
  if (dialect === 'sqlite') keepSqliteInt();
  else leaveMetadataTableOut();
}

function collect(): void {
  const storage = getMetadataArgsStorage();
  const entities = new Set(storage.tables.map((table) => table.target));
  const each = (list: { target: unknown }[], differ: (args: Args, list: Args[]) => void) => {
    const own = list as Args[];
    for (const args of own.filter((a) => entities.has(a.target as never) && !seen.has(a))) {
      seen.add(args);
      differ(args, own);
    }
  };
  // The MySQL fields are a copy taken now, before any shaping.
  const add = (list: Args[], args: Args, sqlite: Args | null, mysql: Args | null = args) =>
    variants.push({ list, args, fields: { sqlite, mysql: mysql && { ...mysql } } });

  each(storage.columns, (args, list) => {
    const options = args.options as ColumnOptions;
    if (options.asExpression) return add(list, args, null);
    const sqlite = sqliteColumn(options);
    if (sqlite) add(list, args, { ...args, options: sqlite });
  });
  each(storage.indices, (args, list) => {
    const sqlite = SQLITE_INDEXES[args.name as string];
    if (sqlite) add(list, args, { ...args, ...sqlite });
  });
  each(storage.relations, (args, list) => {
    const options = args.options as RelationOptions;
    if (args.relationType !== 'many-to-one' || options.onUpdate !== undefined) return;
    add(list, args, { ...args }, { ...args, options: { ...options, onUpdate: SERVER_DEFAULT } });
  });
}

function sqliteColumn(options: ColumnOptions): ColumnOptions | undefined {
  if (options.type === 'decimal') {
    return { ...options, type: 'text', precision: undefined, scale: undefined };
  }
  if (options.type === 'mediumblob') return { ...options, type: 'blob' };
  if (options.type === 'datetime' && options.precision !== undefined) {
    return { ...options, precision: undefined };
  }
  if (options.type === 'boolean' && typeof options.default === 'boolean') {
    const keyword = String(options.default);
    return { ...options, default: () => keyword };
  }
  return undefined;
}

/** Gives the decorator arguments their fields for the database, or takes them out. */
function shape({ list, args }: Variant, fields: Args | null) {
  const at = list.indexOf(args);
  if (!fields) {
    if (at >= 0) list.splice(at, 1);
    return;
  }
  for (const key of Object.keys(args)) delete args[key];
  Object.assign(args, fields);
  if (at < 0) list.push(args);
}

let sqliteInt = false;

/** Entity integer columns other than the ids are `int` on SQLite (see above). */
function keepSqliteInt() {
  if (sqliteInt) return;
  sqliteInt = true;
  const normalizeType = BetterSqlite3Driver.prototype.normalizeType;
  BetterSqlite3Driver.prototype.normalizeType = function (column) {
    const type = normalizeType.call(this, column);
    const entityColumn = column instanceof ColumnMetadata && !column.isGenerated;
    return type === 'integer' && entityColumn ? 'int' : type;
  };
}

let metadataTableOut = false;

/** No `typeorm_metadata` table for generated columns (see above). */
function leaveMetadataTableOut() {
  if (metadataTableOut) return;
  metadataTableOut = true;
  const builder = RdbmsSchemaBuilder.prototype as unknown as { hasGeneratedColumns(): boolean };
  if (typeof builder.hasGeneratedColumns !== 'function') {
    throw new Error('TypeORM changed: RdbmsSchemaBuilder.hasGeneratedColumns is gone.');
  }
  builder.hasGeneratedColumns = () => false;
}
