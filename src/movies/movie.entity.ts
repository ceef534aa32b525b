import {
  Column,
  Entity,
  Index,
  JoinColumn,
  JoinTable,
  ManyToMany,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { Genre } from '../genres/genre.entity';
import { User } from '../users/user.entity';

@Entity('movies')
@Unique('UQ_3a794f850bd3e432c46b3faa913', ['name'])
@Index('idx_movies_main_genre_id', ['main_genre_id'])
export class Movie {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'decimal', precision: 8, scale: 2, nullable: true })
  price: string | null;

  @Column({ type: 'int', nullable: true })
  main_genre_id: number | null;

  @ManyToOne(() => Genre, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'main_genre_id' })
  mainGenre?: Genre | null;

  @ManyToMany(() => Genre)
  @JoinTable({
    name: 'genres_movies',
    joinColumn: { name: 'movie_id' },
    inverseJoinColumn: { name: 'genre_id' },
  })
  genres?: Genre[];

  @ManyToMany(() => User)
  @JoinTable({
    name: 'movies_users',
    joinColumn: { name: 'movie_id' },
    inverseJoinColumn: { name: 'user_id' },
  })
  users?: User[];

  @Column({ type: 'datetime', precision: 3 })
  created_at: Date;

  @Column({ type: 'datetime', precision: 3 })
  updated_at: Date;
}
