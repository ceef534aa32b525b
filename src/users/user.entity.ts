import { Column, Entity, JoinColumn, OneToOne, PrimaryGeneratedColumn } from 'typeorm';

/** Internal table (seeded, no routes): owners of e-mails, marbles, phone numbers and movies. */
@Entity('users')
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255, unique: true })
  login: string;

  /** The user's billing address; its e-mail record shows this user as `billing_user`. */
  @Column({ type: 'int', nullable: true, unique: true })
  email_id: number | null;

  /** By entity name, not class: the Email entity points back here, and imports stay one way. */
  @OneToOne('Email', { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'email_id' })
  billingEmail?: object | null;
}
