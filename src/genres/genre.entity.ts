import { Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** Internal table (seeded, no routes): movie genres. */
@Entity('genres')
@Unique('UQ_f105f8230a83b86a346427de94d', ['name'])
export class Genre {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;
}
