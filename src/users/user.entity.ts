import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** Internal table (seeded, no routes): owners of e-mails, marbles, phone numbers and movies. */
@Entity('users')
@Unique('UQ_2d443082eccd5198f95f2a36e2c', ['login'])
@Unique('UQ_e752aee509d8f8118c6e5b1d8cc', ['email_id'])
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  login: string;

  /** The user's billing address; its e-mail record shows this user as `billing_user`. */
  @Column({ type: 'int', nullable: true })
  email_id: number | null;

  /**
   * One to one in effect (`email_id` is unique), declared many to one: a `@OneToOne` would make
   * TypeORM want a second unique index (`REL_…`) beside the migration's `UQ_…`. The target is
   * named, not imported: the Email entity points back here, and imports stay one way.
   */
  @ManyToOne('Email', { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'email_id' })
  billingEmail?: object | null;
}
