import { Injectable } from '@nestjs/common';
import { RecordError } from '../rest/core/errors';
import { InputReader } from '../rest/core/input';
import { Paginator } from '../rest/core/paginator';
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
  async adjustPrice(id: number, body: unknown): Promise<Message> {
    const price = (this.input.unwrap(body) as { price?: unknown } | undefined)?.price;
    if (price === undefined || price === null) {
      throw RecordError.validation({
        price: [price === null ? 'This field may not be null.' : 'This field is required.'],
      });
    }
    const { values, errors } = await this.input.read({ price }, 'update');
    if (errors) throw RecordError.validation(errors);
    const changed = await this.writer.change(id, () => ({ price: values.price }));
    return new Message(`Price updated to ${changed.price as string}.`);
  }

  /** Flips the flag in one atomic change: N concurrent toggles flip it exactly N times. */
  async toggleIsDiscounted(id: number): Promise<Message> {
    const changed = await this.writer.change(id, (current) => ({
      is_discounted: !current.is_discounted,
    }));
    return new Message(`Is discounted toggled to ${changed.is_discounted as boolean}.`);
  }
}
