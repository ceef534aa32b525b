import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { RecordCollection } from '../rest/collection';
import { Paginator } from '../rest/pagination/paginator';
import { PhoneNumber } from './phone-number.entity';
import { PHONE_NUMBERS, PHONE_NUMBERS_ROUTES } from './phone-numbers.resource';

@Injectable()
export class PhoneNumbersService extends RecordCollection {
  constructor(db: Database, paginator: Paginator) {
    super(PHONE_NUMBERS, db, paginator, { entity: PhoneNumber, bulk: PHONE_NUMBERS_ROUTES.bulk });
  }
}
