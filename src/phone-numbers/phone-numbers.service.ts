import { Injectable } from '@nestjs/common';
import { Paginator } from '../rest/core/paginator';
import { RecordCollection } from '../rest/sql/collection';
import { SqlDatabase } from '../rest/sql/sql-database';
import { PHONE_NUMBERS } from './phone-numbers.resource';

@Injectable()
export class PhoneNumbersService extends RecordCollection {
  constructor(db: SqlDatabase, paginator: Paginator) {
    super(PHONE_NUMBERS, db, paginator);
  }
}
