import { Injectable } from '@nestjs/common';
import { Database, Tx } from '../database/database';
import { RecordCollection } from '../rest/collection';
import { Values } from '../rest/input';
import { Paginator } from '../rest/pagination/paginator';
import { Row } from '../rest/record-writer';
import { Email } from './email.entity';
import { EMAILS } from './emails.resource';

@Injectable()
export class EmailsService extends RecordCollection {
  constructor(db: Database, paginator: Paginator) {
    super(EMAILS, db, paginator, {
      entity: Email,
      bulk: true,
      beforeSave: (tx, values, current) => this.keepOnePrimary(tx, values, current),
    });
  }

  /**
   * At most one primary e-mail per user (CONTRACT §3): an e-mail that is primary after this write
   * takes the flag from its user's others, in the same transaction. A unique index backs it.
   */
  private async keepOnePrimary(tx: Tx, values: Values, current: Row | undefined): Promise<void> {
    const primary = values.is_primary ?? (current ? Number(current.is_primary) === 1 : false);
    if (!primary) return;
    const userId = values.user_id ?? current?.user_id;
    const q = (name: string) => this.db.quote(name);
    await tx.run(
      `UPDATE ${q('emails')} SET ${q('is_primary')} = 0 WHERE ${q('user_id')} = ? AND ${q('is_primary')} = 1 AND ${q('id')} <> ?`,
      [userId, current?.id ?? 0],
    );
  }
}
