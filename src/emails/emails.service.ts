import { Injectable } from '@nestjs/common';
import { Paginator } from '../rest/core/paginator';
import { RecordCollection } from '../rest/sql/collection';
import { SqlDatabase } from '../rest/sql/sql-database';
import { EMAILS } from './emails.resource';

@Injectable()
export class EmailsService extends RecordCollection {
  constructor(db: SqlDatabase, paginator: Paginator) {
    super(EMAILS, db, paginator);
  }
}
