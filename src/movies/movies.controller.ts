import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Options,
  Param,
  Patch,
  Post,
  Put,
  Query,
} from '@nestjs/common';
import { ApiDocs } from '../rest/api-docs';
import { QueryParams } from '../rest/list-query';
import * as Doc from '../rest/openapi';
import { RecordIdPipe } from '../rest/record-id.pipe';
import { Untyped } from '../rest/render';
import { Resource } from '../rest/resource.decorator';
import { MOVIES } from './movies.resource';
import { MoviesService } from './movies.service';

const PATH = '/api/plain/movies';
const MovieId = new RecordIdPipe(MOVIES);

@Controller(PATH)
@Resource(MOVIES)
@Doc.CollectionDoc(MOVIES)
export class MoviesController {
  constructor(
    private readonly movies: MoviesService,
    private readonly docs: ApiDocs,
  ) {}

  @Get()
  @Doc.IndexDoc(MOVIES, false)
  index(@Query() query: QueryParams) {
    return this.movies.list(query);
  }

  @Post()
  @Doc.CreateDoc(MOVIES, false)
  create(@Body() body: unknown) {
    return this.movies.create(body);
  }

  @Options()
  options() {
    return new Untyped(this.docs.forPath(PATH));
  }

  @Get(':id')
  @Doc.ShowDoc(MOVIES)
  show(@Param('id', MovieId) id: number) {
    return this.movies.show(id);
  }

  @Put(':id')
  @Doc.UpdateDoc(MOVIES)
  replace(@Param('id', MovieId) id: number, @Body() body: unknown) {
    return this.movies.update(id, body);
  }

  @Patch(':id')
  @Doc.UpdateDoc(MOVIES)
  update(@Param('id', MovieId) id: number, @Body() body: unknown) {
    return this.movies.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Doc.DestroyDoc()
  destroy(@Param('id', MovieId) id: number) {
    return this.movies.destroy(id);
  }
}
