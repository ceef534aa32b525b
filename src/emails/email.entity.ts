import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { User } from '../users/user.entity';

@Entity('emails')
@Unique('UQ_3cbf51004f0706ac67ff8c22dbf', ['email'])
@Index('idx_emails_user_id', ['user_id'])
export class Email {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  email: string;

  /** At most one per user: a unique index on (user, primary) enforces it in the database. */
  @Column({ type: 'boolean', default: false })
  is_primary: boolean;

  @Column({ type: 'int' })
  user_id: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;
}
