import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryParams } from '../rest/list-query';
import { RecordIdPipe } from '../rest/record-id.pipe';
import { Resource } from '../rest/resource.decorator';
import { MOVIES } from './movies.resource';
import { MoviesService } from './movies.service';

const MovieId = new RecordIdPipe(MOVIES);

@Controller('api/plain/movies')
@Resource(MOVIES)
export class MoviesController {
  constructor(private readonly movies: MoviesService) {}

  @Get()
  index(@Query() query: QueryParams) {
    return this.movies.list(query);
  }

  @Get(':id')
  show(@Param('id', MovieId) id: number) {
    return this.movies.show(id);
  }
}
