import type { Collection } from '../database/collection';
import { Movie } from './movie.entity';
import { MOVIES_DEMO } from './movies.demo';
import { MoviesModule } from './movies.module';
import { MOVIES } from './movies.resource';

export const MOVIES_COLLECTION: Collection = {
  module: MoviesModule,
  declaration: MOVIES,
  entity: Movie,
  demo: MOVIES_DEMO,
};
