import { Column, Index, Unique } from 'typeorm';
import { EntityWith, OrderIndexes, VersionedRow } from '../database/entity-parts';
import { User } from '../users/user.entity';

/**
 * As the migration creates it on MySQL; SQLite has no `primary_user_id` column and puts
 * `uq_emails_primary_user_id` on `user_id` instead (src/database/entity-dialects.ts). `user_id`:
 * the owner (the e-mail is deleted with it).
 */
@EntityWith('emails', { column: 'user_id', target: () => User, onDelete: 'CASCADE' })
@Unique('UQ_3cbf51004f0706ac67ff8c22dbf', ['email'])
@Index('uq_emails_primary_user_id', ['primary_user_id'], { unique: true })
@OrderIndexes('emails', 'is_primary')
export class Email extends VersionedRow {
  @Column({ type: 'varchar', length: 255 })
  email: string;

  /** At most one per user: `uq_emails_primary_user_id` enforces it in the database. */
  @Column({ type: 'boolean', default: false })
  is_primary: boolean;

  /**
   * The owner of a primary address, NULL for the others: MySQL has no partial index, so the
   * unique index goes on this stored generated column. The database computes it: never written.
   */
  @Column({
    type: 'int',
    nullable: true,
    generatedType: 'STORED',
    asExpression: 'CASE WHEN `is_primary` = 1 THEN `user_id` END',
    insert: false,
    update: false,
  })
  primary_user_id?: number | null;
}
