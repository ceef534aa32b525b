import { Injectable } from '@nestjs/common';
import { RecordError } from '../rest/core/errors';
import { InputReader } from '../rest/core/input';
import { Paginator } from '../rest/core/paginator';
import { Precondition, tag } from '../rest/core/preconditions';
import { Message } from '../rest/core/render';
import { RecordCollection } from '../rest/sql/collection';
import { SqlDatabase } from '../rest/sql/port';
import { MARBLES } from './marbles.resource';

@Injectable()
export class MarblesService extends RecordCollection {
  private readonly input = new InputReader(MARBLES);

  constructor(db: SqlDatabase, paginator: Paginator) {
    super(MARBLES, db, paginator);
  }

  /** Sets the price; body `{price}`, validated as the price field. */
  async adjustPrice(id: number, body: unknown, condition?: Precondition): Promise<Message> {
    const price = (this.input.unwrap(body) as { price?: unknown } | undefined)?.price;
    if (price === undefined || price === null) {
      throw RecordError.validation({
        price: [price === null ? 'This field may not be null.' : 'This field is required.'],
      });
    }
    const { values, errors } = await this.input.read({ price }, 'update');
    if (errors) throw RecordError.validation(errors);
    const changed = await this.writer.change(id, () => ({ price: values.price }), condition);
    return tag(new Message(`Price updated to ${changed.values.price as string}.`), changed.tag);
  }

  /** Flips the flag in one atomic change: N concurrent toggles flip it exactly N times. */
  async toggleIsDiscounted(id: number, condition?: Precondition): Promise<Message> {
    const changed = await this.writer.change(
      id,
      (current) => ({ is_discounted: !current.is_discounted }),
      condition,
    );
    const flag = changed.values.is_discounted as boolean;
    return tag(new Message(`Is discounted toggled to ${flag}.`), changed.tag);
  }
}
