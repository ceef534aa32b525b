import { defineCollection } from '../database/collection-folder';
import { MarblesController } from './marbles.controller';
import { MARBLES_DEMO } from './marbles.demo';
import { MARBLES } from './marbles.resource';
import { MarblesService } from './marbles.service';

/** Marbles add two actions (adjust_price, toggle_is_discounted): a controller and service of their own. */
export const MARBLES_COLLECTION = defineCollection(__dirname, {
  declaration: MARBLES,
  demo: MARBLES_DEMO,
  controller: MarblesController,
  service: MarblesService,
});
