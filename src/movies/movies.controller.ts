import { Controller } from '@nestjs/common';
import { ApiDocs } from '../rest/http/openapi/api-docs';
import { CollectionController } from '../rest/http/collection.controller';
import { MOVIES } from './movies.resource';
import { MoviesService } from './movies.service';

@Controller(MOVIES.path)
export class MoviesController extends CollectionController(MOVIES) {
  constructor(service: MoviesService, docs: ApiDocs) {
    super(service, docs);
  }
}
