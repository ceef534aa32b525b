import { Body, Controller, Param, Patch } from '@nestjs/common';
import { ApiDocs } from '../rest/http/openapi/api-docs';
import { CollectionController } from '../rest/http/collection.controller';
import { Operation, action } from '../rest/http/openapi/openapi';
import { inputSchema } from '../rest/http/openapi/openapi-schemas';
import { RecordIdPipe } from '../rest/http/record-id.pipe';
import { XmlRootPipe } from '../rest/http/xml-root.pipe';
import { Conditional, IfMatch } from '../rest/http/safe-writes/safe-writes';
import { Precondition } from '../rest/core/preconditions';
import { MARBLES } from './marbles.resource';
import { MarblesService } from './marbles.service';

const MarbleId = new RecordIdPipe(MARBLES);
const MarbleRoot = new XmlRootPipe(MARBLES);

@Controller(MARBLES.path)
export class MarblesController extends CollectionController(MARBLES) {
  constructor(
    private readonly marbles: MarblesService,
    docs: ApiDocs,
  ) {
    super(marbles, docs);
  }

  @Patch(':id/adjust_price')
  @Operation(
    action({
      operationId: 'adjustMarblePrice',
      summary: 'Set the price of a marble',
      body: {
        schema: {
          type: 'object',
          properties: { price: inputSchema(MARBLES, 'update').properties!.price },
          required: ['price'],
          xml: { name: 'marble' },
        },
        example: { price: '12.5' },
        xmlRoot: 'marble',
      },
      errors: [400],
      message: 'Price updated to 12.5.',
    }),
  )
  @Conditional()
  adjustPrice(
    @Param('id', MarbleId) id: number,
    @Body(MarbleRoot) body: unknown,
    @IfMatch() condition?: Precondition,
  ) {
    return this.marbles.adjustPrice(id, body, condition);
  }

  @Patch(':id/toggle_is_discounted')
  @Operation(
    action({
      operationId: 'toggleMarbleIsDiscounted',
      summary: 'Flip is_discounted of a marble',
      message: 'Is discounted toggled to true.',
    }),
  )
  @Conditional()
  toggleIsDiscounted(@Param('id', MarbleId) id: number, @IfMatch() condition?: Precondition) {
    return this.marbles.toggleIsDiscounted(id, condition);
  }
}
