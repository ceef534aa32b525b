import { Injectable } from '@nestjs/common';
import { FieldErrors, MAX_NAMED_FIELDS, RecordError } from '../rest/core/errors';
import { InputReader } from '../rest/core/input/input';
import { Precondition, tag } from '../rest/core/preconditions';
import { Message } from '../rest/core/output/render';
import { CollectionContext, RecordCollection } from '../rest/sql/record-collection';
import { isPlainObject } from '../rest/core/values';
import { SqlDatabase } from '../rest/db/sql-database';

/** The message for a field of an adjust_price body other than `price`. */
const UNKNOWN_ACTION_FIELD = 'Unknown field; adjust_price takes only price.';

@Injectable()
export class MarblesService extends RecordCollection {
  private readonly input = new InputReader(this.resource);

  constructor(context: CollectionContext, db: SqlDatabase) {
    super(context, db);
  }

  /**
   * Sets the price; body `{price}` (or `{"marble": {price}}`), validated as the price field. Any
   * other field is refused as create and update refuse unknown ones, named with the price's
   * problems.
   */
  async adjustPrice(id: number, body: unknown, condition?: Precondition): Promise<Message> {
    const input = this.input.unwrap(body);
    const fields: Record<string, unknown> = isPlainObject(input) ? input : {};
    const errors: FieldErrors = Object.create(null);
    // Named up to what an answer names (MAX_NAMED_FIELDS, the price's own error included), the
    // rest counted.
    let unknown = 0;
    let unlisted = 0;
    for (const key in fields) {
      if (!Object.hasOwn(fields, key) || key === 'price') continue;
      if (++unknown < MAX_NAMED_FIELDS) errors[key] = [UNKNOWN_ACTION_FIELD];
      else unlisted++;
    }
    const price = fields.price;
    if (price === undefined || price === null) {
      errors.price = [price === null ? 'This field may not be null.' : 'This field is required.'];
      throw RecordError.validation(errors, unlisted);
    }
    const read = await this.input.read({ price }, 'update');
    if (read.errors || unknown > 0) {
      throw RecordError.validation({ ...errors, ...read.errors }, unlisted);
    }
    const changed = await this.writer.change(id, () => ({ price: read.values.price }), condition);
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
