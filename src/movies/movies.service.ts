import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { RecordCollection } from '../rest/collection';
import { Paginator } from '../rest/pagination/paginator';
import { Movie } from './movie.entity';
import { MOVIES } from './movies.resource';

/** The interface document gives movies no bulk routes. */
@Injectable()
export class MoviesService extends RecordCollection {
  constructor(db: Database, paginator: Paginator) {
    super(MOVIES, db, paginator, { entity: Movie, bulk: false });
  }
}
