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
import { PHONE_NUMBERS } from './phone-numbers.resource';
import { PhoneNumbersService } from './phone-numbers.service';

const PATH = '/api/demo/phone_numbers';
const PhoneNumberId = new RecordIdPipe(PHONE_NUMBERS);

@Controller(PATH)
@Resource(PHONE_NUMBERS)
@Doc.CollectionDoc(PHONE_NUMBERS)
export class PhoneNumbersController {
  constructor(
    private readonly phoneNumbers: PhoneNumbersService,
    private readonly docs: ApiDocs,
  ) {}

  @Get()
  @Doc.IndexDoc(PHONE_NUMBERS, true)
  index(@Query() query: QueryParams) {
    return this.phoneNumbers.list(query);
  }

  @Post()
  @Doc.CreateDoc(PHONE_NUMBERS, true)
  create(@Body() body: unknown) {
    return this.phoneNumbers.create(body);
  }

  @Put()
  @Doc.UpdateAllDoc(PHONE_NUMBERS)
  replaceAll(@Body() body: unknown) {
    return this.phoneNumbers.updateAll(body);
  }

  @Patch()
  @Doc.UpdateAllDoc(PHONE_NUMBERS)
  updateAll(@Body() body: unknown) {
    return this.phoneNumbers.updateAll(body);
  }

  @Delete()
  @Doc.DestroyAllDoc(PHONE_NUMBERS)
  destroyAll(@Body() body: unknown) {
    return this.phoneNumbers.destroyAll(body);
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
  @Doc.ShowDoc(PHONE_NUMBERS)
  show(@Param('id', PhoneNumberId) id: number) {
    return this.phoneNumbers.show(id);
  }

  @Put(':id')
  @Doc.UpdateDoc(PHONE_NUMBERS)
  replace(@Param('id', PhoneNumberId) id: number, @Body() body: unknown) {
    return this.phoneNumbers.update(id, body);
  }

  @Patch(':id')
  @Doc.UpdateDoc(PHONE_NUMBERS)
  update(@Param('id', PhoneNumberId) id: number, @Body() body: unknown) {
    return this.phoneNumbers.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Doc.DestroyDoc()
  destroy(@Param('id', PhoneNumberId) id: number) {
    return this.phoneNumbers.destroy(id);
  }
}
