import { defineCollection } from '../database/collection-folder';
import { MOVIES_DEMO } from './movies.demo';
import { MOVIES } from './movies.resource';

export const MOVIES_COLLECTION = defineCollection(__dirname, {
  declaration: MOVIES,
  demo: MOVIES_DEMO,
});
