import { Controller } from '@nestjs/common';
import { ApiDocs } from '../rest/api-docs';
import { CollectionController } from '../rest/collection.controller';
import { MOVIES, MOVIES_ROUTES } from './movies.resource';
import { MoviesService } from './movies.service';

@Controller(MOVIES_ROUTES.path)
export class MoviesController extends CollectionController(MOVIES, MOVIES_ROUTES) {
  constructor(service: MoviesService, docs: ApiDocs) {
    super(service, docs);
  }
}
