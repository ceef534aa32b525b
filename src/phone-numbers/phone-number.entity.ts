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

@Entity('phone_numbers')
@Unique('UQ_39a8667426c93127ba41ecacbaf', ['number'])
@Index('idx_phone_numbers_user_id', ['user_id'])
export class PhoneNumber {
  @PrimaryGeneratedColumn()
  id: number;

  /** Free-form, stored exactly as sent. */
  @Column({ type: 'varchar', length: 255 })
  number: string;

  @Column({ type: 'int' })
  user_id: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;
}
