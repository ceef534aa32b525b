import {
  collection,
  decimal,
  foreignKey,
  integer,
  reference,
  string,
  timestamp,
} from '../rest/core/fields';
import { defineResource } from '../rest/core/resource';
import { genreSummary } from '../genres/genres.table';
import { userSummary } from '../users/users.table';

export const MOVIES = defineResource({
  path: '/api/plain/movies',
  singular: 'movie',
  plural: 'movies',
  label: 'Movie',
  table: 'movies',
  fields: [
    integer('id'),
    timestamp('created_at', { setOn: 'create' }),
    string('name', {
      searchable: true,
      unique: true,
      write: { required: true, notBlank: true, maxLength: 255 },
    }),
    decimal('price', {
      precision: 8,
      scale: 2,
      write: { nullable: true, greaterThan: '0', max: '999999.99', default: null },
    }),
    timestamp('updated_at', { setOn: 'write' }),
    foreignKey('main_genre_id', 'genres', { nullable: true, default: null }),
    reference('main_genre', {
      table: 'genres',
      targetColumn: 'id',
      rootColumn: 'main_genre_id',
      fields: genreSummary(),
    }),
    // Listings carry `genres` empty; show and writes carry the real ones.
    collection('genres', {
      through: 'genres_movies',
      ownerColumn: 'movie_id',
      targetColumn: 'genre_id',
      table: 'genres',
      fields: genreSummary(),
      inIndex: false,
      writeAs: 'genre_ids',
    }),
    collection('users', {
      through: 'movies_users',
      ownerColumn: 'movie_id',
      targetColumn: 'user_id',
      table: 'users',
      fields: userSummary(),
      inIndex: true,
      writeAs: 'user_ids',
    }),
  ],
  // Movies are a plain collection: no bulk create, update_all or destroy_all, and the index is a
  // bare list, not paginated.
  bulk: false,
  examples: {
    id: 1,
    deletable: [10],
    create: {
      name: 'The Example Movie',
      price: '9.99',
      main_genre_id: 2,
      genre_ids: [2, 3],
      user_ids: [1],
    },
    update: { price: '12.5', genre_ids: [1, 2] },
  },
  pagination: null,
});
