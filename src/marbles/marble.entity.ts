import { Column, Index, Unique } from 'typeorm';
import { EntityWith, OrderIndexes, VersionedRow } from '../database/entity-parts';
import { User } from '../users/user.entity';

/** `user_id`: the owner, if any (kept when the owner goes, as NULL). */
@EntityWith('marbles', { column: 'user_id', target: () => User, onDelete: 'SET NULL' })
@Unique('UQ_5e66af4260cca76d38c847c3655', ['name'])
@Index('idx_marbles_description_key', ['description_key'])
@OrderIndexes(
  'marbles',
  'radius_mm',
  'price',
  'is_discounted',
  'created_at',
  'updated_at',
  'picture',
)
export class Marble extends VersionedRow {
  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'int', default: 1 })
  radius_mm: number;

  /** Kept as a decimal string end to end (SQLite stores it as text: entity-dialects.ts). */
  @Column({ type: 'decimal', precision: 6, scale: 2, nullable: true })
  price: string | null;

  @Column({ type: 'boolean', default: false })
  is_discounted: boolean;

  @Column({ type: 'datetime', precision: 3 })
  created_at: Date;

  @Column({ type: 'datetime', precision: 3 })
  updated_at: Date;

  @Column({ type: 'text' })
  description: string;

  /**
   * The description's first 100 characters, under an index that orders by the description
   * (src/rest/sql/index-walks.ts): MySQL indexes no TEXT whole. Computed by the database, never written;
   * SQLite has no such column and indexes the expression instead (entity-dialects.ts).
   */
  @Column({
    type: 'varchar',
    length: 100,
    nullable: true,
    generatedType: 'VIRTUAL',
    asExpression: 'LEFT(`description`, 100)',
    insert: false,
    update: false,
  })
  description_key?: string | null;

  /** No route sets it: what a picture holds (a URL, an upload) is left open. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  picture: string | null;
}
