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
import { Message, Untyped } from '../rest/render';
import { Resource } from '../rest/resource.decorator';
import { EMAILS } from './emails.resource';
import { EmailsService } from './emails.service';

const PATH = '/api/demo/emails';
const EmailId = new RecordIdPipe(EMAILS);

@Controller(PATH)
@Resource(EMAILS)
@Doc.CollectionDoc(EMAILS)
export class EmailsController {
  constructor(
    private readonly emails: EmailsService,
    private readonly docs: ApiDocs,
  ) {}

  @Get()
  @Doc.IndexDoc(EMAILS, true)
  index(@Query() query: QueryParams) {
    return this.emails.list(query);
  }

  @Post()
  @Doc.CreateDoc(EMAILS, true)
  create(@Body() body: unknown) {
    return this.emails.create(body);
  }

  @Put()
  @Doc.UpdateAllDoc(EMAILS)
  replaceAll(@Body() body: unknown) {
    return this.emails.updateAll(body);
  }

  @Patch()
  @Doc.UpdateAllDoc(EMAILS)
  updateAll(@Body() body: unknown) {
    return this.emails.updateAll(body);
  }

  @Delete()
  @Doc.DestroyAllDoc(EMAILS)
  destroyAll(@Body() body: unknown) {
    return this.emails.destroyAll(body);
  }

  @Options()
  options() {
    return new Untyped(this.docs.forPath(PATH));
  }

  @Get('ping')
  @Doc.MessageDoc()
  ping() {
    return new Message('pong');
  }

  @Get('child_ping')
  @Doc.MessageDoc()
  childPing() {
    return new Message('child pong');
  }

  @Get(':id')
  @Doc.ShowDoc(EMAILS)
  show(@Param('id', EmailId) id: number) {
    return this.emails.show(id);
  }

  @Put(':id')
  @Doc.UpdateDoc(EMAILS)
  replace(@Param('id', EmailId) id: number, @Body() body: unknown) {
    return this.emails.update(id, body);
  }

  @Patch(':id')
  @Doc.UpdateDoc(EMAILS)
  update(@Param('id', EmailId) id: number, @Body() body: unknown) {
    return this.emails.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Doc.DestroyDoc()
  destroy(@Param('id', EmailId) id: number) {
    return this.emails.destroy(id);
  }
}
