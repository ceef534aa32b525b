import { Column, Entity, Unique } from 'typeorm';
import { IdentifiedRow } from '../database/entity-parts';

/** Internal table (seeded, no routes): movie genres. */
@Entity('genres')
@Unique('UQ_f105f8230a83b86a346427de94d', ['name'])
export class Genre extends IdentifiedRow {
  @Column({ type: 'varchar', length: 255 })
  name: string;
}
