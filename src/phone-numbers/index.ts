import { defineCollection } from '../database/collection-folder';
import { PHONE_NUMBERS_DEMO } from './phone-numbers.demo';
import { PHONE_NUMBERS } from './phone-numbers.resource';

export const PHONE_NUMBERS_COLLECTION = defineCollection(__dirname, {
  declaration: PHONE_NUMBERS,
  demo: PHONE_NUMBERS_DEMO,
});
