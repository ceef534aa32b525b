import { Injectable } from '@nestjs/common';
import { CollectionContext, RecordCollection } from '../rest/sql/record-collection';
import { SqlDatabase } from '../rest/db/sql-database';

@Injectable()
export class EmailsService extends RecordCollection {
  constructor(context: CollectionContext, db: SqlDatabase) {
    super(context, db);
  }
}
