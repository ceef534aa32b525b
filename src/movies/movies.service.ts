import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { RecordCollection } from '../rest/collection';
import { Paginator } from '../rest/pagination/paginator';
import { Movie } from './movie.entity';
import { MOVIES, MOVIES_ROUTES } from './movies.resource';

@Injectable()
export class MoviesService extends RecordCollection {
  constructor(db: Database, paginator: Paginator) {
    super(MOVIES, db, paginator, { entity: Movie, bulk: MOVIES_ROUTES.bulk });
  }
}
