import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryParams } from '../rest/list-query';
import { RecordIdPipe } from '../rest/record-id.pipe';
import { Message } from '../rest/render';
import { Resource } from '../rest/resource.decorator';
import { EMAILS } from './emails.resource';
import { EmailsService } from './emails.service';

const EmailId = new RecordIdPipe(EMAILS);

@Controller('api/demo/emails')
@Resource(EMAILS)
export class EmailsController {
  constructor(private readonly emails: EmailsService) {}

  @Get()
  index(@Query() query: QueryParams) {
    return this.emails.list(query);
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
  show(@Param('id', EmailId) id: number) {
    return this.emails.show(id);
  }
}
