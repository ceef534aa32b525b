import { Column, Entity, JoinColumn, OneToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Email } from '../emails/email.entity';

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

  @OneToOne(() => Email, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'email_id' })
  billingEmail?: Email | null;
}
