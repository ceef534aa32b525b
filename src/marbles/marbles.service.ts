import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { RecordCollection } from '../rest/collection';
import { invalid } from '../rest/record-writer';
import { InputReader } from '../rest/input';
import { Paginator } from '../rest/pagination/paginator';
import { Message } from '../rest/render';
import { canonicalDecimal } from '../rest/values';
import { Marble } from './marble.entity';
import { MARBLES, MARBLES_ROUTES } from './marbles.resource';

@Injectable()
export class MarblesService extends RecordCollection {
  private readonly input = new InputReader(MARBLES);

  constructor(db: Database, paginator: Paginator) {
    super(MARBLES, db, paginator, { entity: Marble, bulk: MARBLES_ROUTES.bulk });
  }

  /** Sets the price in one statement; body `{price}`, validated as the price field. */
  async adjustPrice(id: number, body: unknown): Promise<Message> {
    const record = this.input.unwrap(body);
    const price = (record as { price?: unknown } | undefined)?.price;
    if (price === undefined || price === null) {
      invalid({
        price: [price === null ? 'This field may not be null.' : 'This field is required.'],
      });
    }
    const { values, errors } = await this.input.read({ price }, 'update');
    if (errors) invalid(errors);
    await this.writer.change(id, `${this.q('price')} = ?`, [values.price], 'price');
    return new Message(`Price updated to ${canonicalDecimal(values.price as string)}.`);
  }

  /** Flips the flag in one atomic change: N concurrent toggles flip it exactly N times. */
  async toggleIsDiscounted(id: number): Promise<Message> {
    const flag = this.q('is_discounted');
    const value = await this.writer.change(id, `${flag} = 1 - ${flag}`, [], 'is_discounted');
    return new Message(`Is discounted toggled to ${Number(value) === 1}.`);
  }

  private q(name: string): string {
    return this.db.quote(name);
  }
}
