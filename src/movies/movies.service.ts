import { Injectable } from '@nestjs/common';
import { Paginator } from '../rest/core/paginator';
import { RecordCollection } from '../rest/sql/collection';
import { SqlDatabase } from '../rest/sql/sql-database';
import { MOVIES } from './movies.resource';

@Injectable()
export class MoviesService extends RecordCollection {
  constructor(db: SqlDatabase, paginator: Paginator) {
    super(MOVIES, db, paginator);
  }
}
