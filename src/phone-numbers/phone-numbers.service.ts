import { Injectable } from '@nestjs/common';
import { CollectionContext, RecordCollection } from '../rest/sql/collection';
import { SqlDatabase } from '../rest/sql/sql-database';

@Injectable()
export class PhoneNumbersService extends RecordCollection {
  constructor(context: CollectionContext, db: SqlDatabase) {
    super(context, db);
  }
}
