import type { Collection } from '../database/collection-folder';
import { MARBLES_DEMO } from './marbles.demo';
import { MarblesModule } from './marbles.module';
import { MARBLES } from './marbles.resource';

export const MARBLES_COLLECTION: Collection = {
  module: MarblesModule,
  declaration: MARBLES,
  demo: MARBLES_DEMO,
};
