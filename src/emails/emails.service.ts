import { Injectable } from '@nestjs/common';
import { Database, Tx } from '../database/database';
import { RecordCollection } from '../rest/collection';
import { Values } from '../rest/input';
import { Paginator } from '../rest/pagination/paginator';
import { Row } from '../rest/record-writer';
import { Email } from './email.entity';
import { EMAILS, EMAILS_ROUTES } from './emails.resource';

@Injectable()
export class EmailsService extends RecordCollection {
  constructor(db: Database, paginator: Paginator) {
    super(EMAILS, db, paginator, {
      entity: Email,
      bulk: EMAILS_ROUTES.bulk,
      beforeSave: (tx, values, current) => this.keepOnePrimary(tx, values, current),
    });
  }

  /**
   * At most one primary e-mail per user (CONTRACT §3): an e-mail that becomes primary, or moves to
   * another user while primary, takes the flag from that user's other e-mail in the same
   * transaction. A unique index backs the rule. On MySQL the flag is cleared through that index
   * (`primary_user_id`), so only the one primary row is locked: clearing by `user_id` would lock
   * all of the user's rows and deadlock concurrent edits.
   */
  private async keepOnePrimary(tx: Tx, values: Values, current: Row | undefined): Promise<void> {
    const primary = values.is_primary ?? (current ? Number(current.is_primary) === 1 : false);
    const userId = values.user_id ?? current?.user_id;
    const becomesPrimary = values.is_primary === true || (primary && userId !== current?.user_id);
    if (!becomesPrimary) return;
    const q = (name: string) => this.db.quote(name);
    const owner = this.db.dialect === 'mysql' ? q('primary_user_id') : q('user_id');
    await tx.run(
      `UPDATE ${q('emails')} SET ${q('is_primary')} = 0 WHERE ${owner} = ? AND ${q('is_primary')} = 1 AND ${q('id')} <> ?`,
      [userId, current?.id ?? 0],
    );
  }
}
