import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { User } from '../users/user.entity';

@Entity('phone_numbers')
export class PhoneNumber {
  @PrimaryGeneratedColumn()
  id: number;

  /** Free-form, stored exactly as sent. */
  @Column({ type: 'varchar', length: 255, unique: true })
  number: string;

  @Column({ type: 'int' })
  user_id: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;
}
