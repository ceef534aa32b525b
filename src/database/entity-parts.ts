/**
 * What the entities repeat, declared once: the integer id every table has, and foreign keys as
 * the init migration creates them (an int column, ON DELETE, an `idx_<table>_<column>` index).
 */
import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
} from 'typeorm';

/** The auto-increment integer id, for an entity to extend. */
export abstract class IdentifiedRow {
  @PrimaryGeneratedColumn()
  id: number;
}

/**
 * The id and the version of a collection's record: every write moves the version, so the record's
 * ETag changes with it and a write whose If-Match names an older version is refused.
 */
export abstract class VersionedRow extends IdentifiedRow {
  @Column({ type: 'int', default: 1 })
  version: number;
}

export interface ForeignKey {
  /** The column, e.g. `user_id`; its relation is the same name without `_id` (`user`). */
  column: string;
  /** The referenced entity: `() => User`, or its name where an import would run back. */
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  target: string | (() => Function);
  /** `SET NULL` makes the column nullable; `CASCADE` deletes the row with its target. */
  onDelete: 'CASCADE' | 'SET NULL';
  /** Part of the primary key (join tables). Default false. */
  primary?: boolean;
  /** Given the migration's `idx_<table>_<column>` index. Default true. */
  indexed?: boolean;
}

/** `@Entity(table)` and its foreign keys: for each, the column, its relation and its index. */
export function EntityWith(table: string, ...foreignKeys: ForeignKey[]): ClassDecorator {
  return (target) => {
    Entity(table)(target);
    for (const key of foreignKeys) {
      const { column, onDelete } = key;
      const relation = column.replace(/_id$/, '');
      const prototype = target.prototype as object;
      if (key.primary) PrimaryColumn({ type: 'int' })(prototype, column);
      else Column({ type: 'int', nullable: onDelete === 'SET NULL' })(prototype, column);
      ManyToOne(key.target as string, { onDelete })(prototype, relation);
      JoinColumn({ name: column })(prototype, relation);
      if (key.indexed ?? true) Index(`idx_${table}_${column}`, [column])(target);
    }
  };
}

/**
 * The `idx_<table>_<column>` indexes of migrations/1763800000000-ordering-indexes.ts, one a column
 * a page can be ordered by.
 */
export function OrderIndexes(table: string, ...columns: string[]): ClassDecorator {
  return (target) => {
    for (const column of columns) Index(`idx_${table}_${column}`, [column])(target);
  };
}
