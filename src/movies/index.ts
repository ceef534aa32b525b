import type { Collection } from '../database/collection-folder';
import { MOVIES_DEMO } from './movies.demo';
import { MoviesModule } from './movies.module';
import { MOVIES } from './movies.resource';

export const MOVIES_COLLECTION: Collection = {
  module: MoviesModule,
  declaration: MOVIES,
  demo: MOVIES_DEMO,
};
