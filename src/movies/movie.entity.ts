import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { Genre } from '../genres/genre.entity';
import { User } from '../users/user.entity';

/**
 * A movie's genres and users are many-to-many, through `genres_movies` and `movies_users`.
 * Those join tables are entities of their own (below) rather than `@ManyToMany` + `@JoinTable`:
 * TypeORM gives a `@JoinTable` an index on each column, with generated names, and neither can
 * be named or left out; the migration indexes only the second column (`idx_<table>_<column>`),
 * the primary key already serving lookups by movie.
 */
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

  @Column({ type: 'datetime', precision: 3 })
  created_at: Date;

  @Column({ type: 'datetime', precision: 3 })
  updated_at: Date;
}

/** Join table: the genres of a movie. */
@Entity('genres_movies')
@Index('idx_genres_movies_genre_id', ['genre_id'])
export class GenreMovie {
  @PrimaryColumn({ type: 'int' })
  movie_id: number;

  @PrimaryColumn({ type: 'int' })
  genre_id: number;

  @ManyToOne(() => Movie, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'movie_id' })
  movie?: Movie;

  @ManyToOne(() => Genre, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'genre_id' })
  genre?: Genre;
}

/** Join table: the users of a movie. */
@Entity('movies_users')
@Index('idx_movies_users_user_id', ['user_id'])
export class MovieUser {
  @PrimaryColumn({ type: 'int' })
  movie_id: number;

  @PrimaryColumn({ type: 'int' })
  user_id: number;

  @ManyToOne(() => Movie, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'movie_id' })
  movie?: Movie;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;
}
