import { DemoRows, demoCents, demoTimestamp } from '../database/demo-data';

const NAMES = [
  'The Long Voyage',
  'Midnight Harbor',
  'Paper Lanterns',
  'The Glass Orchard',
  'Northern Lights',
  'A Quiet Engine',
  'Salt and Cedar',
  'The Last Cartographer',
  'Iron Meadow',
  'Small Hours',
  'The Copper Fox',
  'Velvet Static',
  'Under the Viaduct',
  'Seven Bridges',
  'The Lighthouse Keeper',
  'Borrowed Thunder',
  'Winter Orchard',
  'The Tin Astronomer',
  'Hollow Creek',
  'Marble Skies',
  "The Weaver's Daughter",
  'Signal Fires',
  'Open Water',
  'The Clockmaker',
  'Desert Rain',
  'Parallel Streets',
  'Echo Valley',
  'The Final Draft',
  'Lantern Festival',
  'Golden Hour',
];

/**
 * 30 movies, one a day from 2024-01-01, every sixth without a price; each with its main genre
 * and up to two more, and from none to three owners.
 */
export const MOVIES_DEMO: DemoRows = {
  tables: ['movies_users', 'genres_movies', 'movies'],
  rows({ random: rnd, genres }) {
    const movies: unknown[][] = [];
    const genresMovies: unknown[][] = [];
    const moviesUsers: unknown[][] = [];
    NAMES.forEach((name, i) => {
      const id = i + 1;
      const price = i % 6 === 5 ? null : demoCents(rnd.int(199, 2999) - (i % 4 === 0 ? 99 : 0));
      const main = (i % genres.length) + 1;
      movies.push([id, name, price, main, demoTimestamp(i * 24), demoTimestamp(i * 24, 12)]);
      const extra = new Set([main]);
      for (let k = rnd.int(0, 2); k > 0; k--) extra.add(rnd.int(1, genres.length));
      for (const genre of extra) genresMovies.push([id, genre]);
      const owners = new Set<number>();
      for (let k = i % 4; k > 0; k--) owners.add(rnd.int(1, 100));
      for (const user of owners) moviesUsers.push([id, user]);
    });
    return [
      {
        table: 'movies',
        columns: ['id', 'name', 'price', 'main_genre_id', 'created_at', 'updated_at'],
        rows: movies,
      },
      { table: 'genres_movies', columns: ['movie_id', 'genre_id'], rows: genresMovies },
      { table: 'movies_users', columns: ['movie_id', 'user_id'], rows: moviesUsers },
    ];
  },
};
