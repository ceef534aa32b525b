import { Column, Unique } from 'typeorm';
import { EntityWith, VersionedRow } from '../database/entity-parts';
import { Genre } from '../genres/genre.entity';
import { User } from '../users/user.entity';

/**
 * A movie's genres and users are many-to-many, through `genres_movies` and `movies_users`.
 * Those join tables are entities of their own (below) rather than `@ManyToMany` + `@JoinTable`:
 * TypeORM gives a `@JoinTable` an index on each column, with generated names, and neither can
 * be named or left out; the migration indexes only the second column (`idx_<table>_<column>`),
 * the primary key already serving lookups by movie.
 */
@EntityWith('movies', { column: 'main_genre_id', target: () => Genre, onDelete: 'SET NULL' })
@Unique('UQ_3a794f850bd3e432c46b3faa913', ['name'])
export class Movie extends VersionedRow {
  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'decimal', precision: 8, scale: 2, nullable: true })
  price: string | null;

  @Column({ type: 'datetime', precision: 3 })
  created_at: Date;

  @Column({ type: 'datetime', precision: 3 })
  updated_at: Date;
}

/** The key of a movie's join table: the movie and the other side, both deleted with either. */
const movieAnd = (column: string, target: () => typeof Genre | typeof User) =>
  [
    { column: 'movie_id', target: () => Movie, onDelete: 'CASCADE', primary: true, indexed: false },
    { column, target, onDelete: 'CASCADE', primary: true },
  ] as const;

/** Join table: the genres of a movie. */
@EntityWith('genres_movies', ...movieAnd('genre_id', () => Genre))
export class GenreMovie {}

/** Join table: the users of a movie. */
@EntityWith('movies_users', ...movieAnd('user_id', () => User))
export class MovieUser {}
