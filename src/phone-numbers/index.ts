import type { Collection } from '../database/collection-folder';
import { PHONE_NUMBERS_DEMO } from './phone-numbers.demo';
import { PhoneNumbersModule } from './phone-numbers.module';
import { PHONE_NUMBERS } from './phone-numbers.resource';

export const PHONE_NUMBERS_COLLECTION: Collection = {
  module: PhoneNumbersModule,
  declaration: PHONE_NUMBERS,
  demo: PHONE_NUMBERS_DEMO,
};
