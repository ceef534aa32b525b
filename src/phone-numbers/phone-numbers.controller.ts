import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryParams } from '../rest/list-query';
import { RecordIdPipe } from '../rest/record-id.pipe';
import { Message } from '../rest/render';
import { Resource } from '../rest/resource.decorator';
import { PHONE_NUMBERS } from './phone-numbers.resource';
import { PhoneNumbersService } from './phone-numbers.service';

const PhoneNumberId = new RecordIdPipe(PHONE_NUMBERS);

@Controller('api/demo/phone_numbers')
@Resource(PHONE_NUMBERS)
export class PhoneNumbersController {
  constructor(private readonly phoneNumbers: PhoneNumbersService) {}

  @Get()
  index(@Query() query: QueryParams) {
    return this.phoneNumbers.list(query);
  }

  @Get('ping')
  ping() {
    return new Message('pong');
  }

  @Get('child_ping')
  childPing() {
    return new Message('child pong');
  }

  @Get(':id')
  show(@Param('id', PhoneNumberId) id: number) {
    return this.phoneNumbers.show(id);
  }
}
