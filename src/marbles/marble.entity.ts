import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { User } from '../users/user.entity';

@Entity('marbles')
export class Marble {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255, unique: true })
  name: string;

  @Column({ name: 'radius_mm', type: 'int', default: 1 })
  radiusMm: number;

  /** Kept as a decimal string end to end (SQLite stores it as text, see the migration). */
  @Column({ type: 'decimal', precision: 6, scale: 2, nullable: true })
  price: string | null;

  @Column({ name: 'is_discounted', type: 'boolean', default: false })
  isDiscounted: boolean;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: string;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt: string;

  @Column({ name: 'user_id', type: 'int', nullable: true })
  userId: number | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'user_id' })
  user?: User | null;

  @Column({ type: 'text' })
  description: string;

  /** No route sets it; the interface document leaves a picture's shape open. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  picture: string | null;
}
