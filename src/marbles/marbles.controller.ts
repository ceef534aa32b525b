import { Body, Controller, Param, Patch } from '@nestjs/common';
import { ApiDocs } from '../rest/http/api-docs';
import { CollectionController } from '../rest/http/collection.controller';
import { MessageDoc } from '../rest/http/openapi';
import { RecordIdPipe } from '../rest/http/record-id.pipe';
import { MARBLES } from './marbles.resource';
import { MarblesService } from './marbles.service';

const MarbleId = new RecordIdPipe(MARBLES);

@Controller(MARBLES.path)
export class MarblesController extends CollectionController(MARBLES) {
  constructor(
    private readonly marbles: MarblesService,
    docs: ApiDocs,
  ) {
    super(marbles, docs);
  }

  @Patch(':id/adjust_price')
  @MessageDoc()
  adjustPrice(@Param('id', MarbleId) id: number, @Body() body: unknown) {
    return this.marbles.adjustPrice(id, body);
  }

  @Patch(':id/toggle_is_discounted')
  @MessageDoc()
  toggleIsDiscounted(@Param('id', MarbleId) id: number) {
    return this.marbles.toggleIsDiscounted(id);
  }
}
