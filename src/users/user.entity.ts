import { Column, Unique } from 'typeorm';
import { EntityWith, IdentifiedRow } from '../database/entity-parts';

/**
 * Internal table (seeded, no routes): owners of e-mails, marbles, phone numbers and movies.
 * `email_id` is the user's billing address, which its e-mail record shows as `billing_user`: one
 * to one in effect (unique), declared many to one, as a `@OneToOne` would make TypeORM want a
 * second unique index (`REL_…`). The target is named, not imported: Email points back here.
 */
@EntityWith('users', { column: 'email_id', target: 'Email', onDelete: 'SET NULL', indexed: false })
@Unique('UQ_2d443082eccd5198f95f2a36e2c', ['login'])
@Unique('UQ_e752aee509d8f8118c6e5b1d8cc', ['email_id'])
export class User extends IdentifiedRow {
  @Column({ type: 'varchar', length: 255 })
  login: string;
}
