import { Controller } from '@nestjs/common';
import { ApiDocs } from '../rest/api-docs';
import { CollectionController } from '../rest/collection.controller';
import { MOVIES } from './movies.resource';
import { MoviesService } from './movies.service';

const PATH = '/api/plain/movies';

// The interface document: no collection-wide update or delete, no probes, a bare list.
@Controller(PATH)
export class MoviesController extends CollectionController(MOVIES, {
  path: PATH,
  bulk: false,
  probes: false,
  paginated: false,
}) {
  constructor(service: MoviesService, docs: ApiDocs) {
    super(service, docs);
  }
}
