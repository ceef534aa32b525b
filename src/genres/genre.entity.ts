import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Internal table (seeded, no routes): movie genres. */
@Entity('genres')
export class Genre {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255, unique: true })
  name: string;
}
