import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { ApiError } from '../rest/api-error';
import { RecordCollection } from '../rest/collection';
import { InputReader } from '../rest/input';
import { Paginator } from '../rest/pagination/paginator';
import { Message } from '../rest/render';
import { canonicalDecimal } from '../rest/values';
import { Marble } from './marble.entity';
import { MARBLES } from './marbles.resource';

@Injectable()
export class MarblesService extends RecordCollection {
  private readonly input = new InputReader(MARBLES);

  constructor(db: Database, paginator: Paginator) {
    super(MARBLES, db, paginator, { entity: Marble, bulk: true });
  }

  /** Sets the price in one statement; body `{price}`, validated as the price field. */
  async adjustPrice(id: number, body: unknown): Promise<Message> {
    const record = this.input.unwrap(body);
    const price = (record as { price?: unknown } | undefined)?.price;
    if (price === undefined || price === null) {
      throw new ApiError(400, 'Validation failed; nothing was saved.', {
        price: [price === null ? 'This field may not be null.' : 'This field is required.'],
      });
    }
    const { values, errors } = await this.input.read({ price }, 'update');
    if (errors) throw new ApiError(400, 'Validation failed; nothing was saved.', errors);
    await this.change(id, `${this.q('price')} = ?`, [values.price]);
    return new Message(`Price updated to ${canonicalDecimal(values.price as string)}.`);
  }

  /**
   * Flips the flag in one UPDATE and reads it back in the same transaction, which holds the row
   * lock: N concurrent toggles flip it exactly N times and each reports the value it set.
   */
  async toggleIsDiscounted(id: number): Promise<Message> {
    const flag = this.q('is_discounted');
    const value = await this.change(id, `${flag} = 1 - ${flag}`, [], 'is_discounted');
    return new Message(`Is discounted toggled to ${Number(value) === 1}.`);
  }

  private change(id: number, assignment: string, parameters: unknown[], read?: string) {
    const table = this.q(MARBLES.table);
    return this.db.transaction(async (tx) => {
      const { affected } = await tx.run(
        `UPDATE ${table} SET ${assignment}, ${this.q('updated_at')} = ? WHERE ${this.q('id')} = ?`,
        [...parameters, new Date().toISOString().slice(0, 23).replace('T', ' '), id],
      );
      if (affected === 0) throw ApiError.notFound(MARBLES.label, id);
      if (!read) return undefined;
      const { rows } = await tx.run(
        `SELECT ${this.q(read)} AS v FROM ${table} WHERE ${this.q('id')} = ?`,
        [id],
      );
      return rows[0].v;
    });
  }

  private q(name: string): string {
    return this.db.quote(name);
  }
}
