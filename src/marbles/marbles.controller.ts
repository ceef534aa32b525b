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
import { MARBLES } from './marbles.resource';
import { MarblesService } from './marbles.service';

const PATH = '/api/demo/marbles';
const MarbleId = new RecordIdPipe(MARBLES);

@Controller(PATH)
@Resource(MARBLES)
@Doc.CollectionDoc(MARBLES)
export class MarblesController {
  constructor(
    private readonly marbles: MarblesService,
    private readonly docs: ApiDocs,
  ) {}

  @Get()
  @Doc.IndexDoc(MARBLES, true)
  index(@Query() query: QueryParams) {
    return this.marbles.list(query);
  }

  @Post()
  @Doc.CreateDoc(MARBLES, true)
  create(@Body() body: unknown) {
    return this.marbles.create(body);
  }

  @Put()
  @Doc.UpdateAllDoc(MARBLES)
  replaceAll(@Body() body: unknown) {
    return this.marbles.updateAll(body);
  }

  @Patch()
  @Doc.UpdateAllDoc(MARBLES)
  updateAll(@Body() body: unknown) {
    return this.marbles.updateAll(body);
  }

  @Delete()
  @Doc.DestroyAllDoc(MARBLES)
  destroyAll(@Body() body: unknown) {
    return this.marbles.destroyAll(body);
  }

  @Options()
  options() {
    return new Untyped(this.docs.forPath(PATH));
  }

  @Get(':id')
  @Doc.ShowDoc(MARBLES)
  show(@Param('id', MarbleId) id: number) {
    return this.marbles.show(id);
  }

  @Put(':id')
  @Doc.UpdateDoc(MARBLES)
  replace(@Param('id', MarbleId) id: number, @Body() body: unknown) {
    return this.marbles.update(id, body);
  }

  @Patch(':id')
  @Doc.UpdateDoc(MARBLES)
  update(@Param('id', MarbleId) id: number, @Body() body: unknown) {
    return this.marbles.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Doc.DestroyDoc()
  destroy(@Param('id', MarbleId) id: number) {
    return this.marbles.destroy(id);
  }

  @Patch(':id/adjust_price')
  @Doc.MessageDoc()
  adjustPrice(@Param('id', MarbleId) id: number, @Body() body: unknown) {
    return this.marbles.adjustPrice(id, body);
  }

  @Patch(':id/toggle_is_discounted')
  @Doc.MessageDoc()
  toggleIsDiscounted(@Param('id', MarbleId) id: number) {
    return this.marbles.toggleIsDiscounted(id);
  }
}
