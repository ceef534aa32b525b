import type { Collection } from '../database/collection';
import { PhoneNumber } from './phone-number.entity';
import { PHONE_NUMBERS_DEMO } from './phone-numbers.demo';
import { PhoneNumbersModule } from './phone-numbers.module';
import { PHONE_NUMBERS } from './phone-numbers.resource';

export const PHONE_NUMBERS_COLLECTION: Collection = {
  module: PhoneNumbersModule,
  declaration: PHONE_NUMBERS,
  entity: PhoneNumber,
  demo: PHONE_NUMBERS_DEMO,
};
