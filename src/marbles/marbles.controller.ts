import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryParams } from '../rest/list-query';
import { RecordIdPipe } from '../rest/record-id.pipe';
import { Resource } from '../rest/resource.decorator';
import { MARBLES } from './marbles.resource';
import { MarblesService } from './marbles.service';

const MarbleId = new RecordIdPipe(MARBLES);

@Controller('api/demo/marbles')
@Resource(MARBLES)
export class MarblesController {
  constructor(private readonly marbles: MarblesService) {}

  @Get()
  index(@Query() query: QueryParams) {
    return this.marbles.list(query);
  }

  @Get(':id')
  show(@Param('id', MarbleId) id: number) {
    return this.marbles.show(id);
  }
}
