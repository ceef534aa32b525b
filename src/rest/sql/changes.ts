/**
 * Where a write tells of the records it changed, inside its transaction: the change feed
 * (src/events) installs a ChangeLog on the database it writes to, and RecordWriter calls it after
 * each write, so that the events commit (or roll back) with the change. Without one (the feed
 * off, a tool that only migrates), writes record nothing.
 */
import { ResourceDefinition } from '../core/resource';
import type { ApiRecord } from './record-query';
import { SqlDatabase, Tx } from '../db/sql-database';

export type ChangeAction = 'created' | 'updated' | 'deleted';

export interface ChangeLog {
  /**
   * `ids` of `resource` were changed by `action` in `tx`: adds their events to it. Returns the
   * records as it read them for the events (as `show` answers, with their ETags), in the order of
   * `ids`, found ones only; none for `deleted`. The write answers with them: one read, not two.
   */
  recorded(
    tx: Tx,
    resource: ResourceDefinition,
    action: ChangeAction,
    ids: number[],
  ): Promise<ApiRecord[]>;
}

const logs = new WeakMap<SqlDatabase, ChangeLog>();

/** The ChangeLog of `db`'s writes from now on; undefined removes it. */
export function setChangeLog(db: SqlDatabase, log: ChangeLog | undefined): void {
  if (log) logs.set(db, log);
  else logs.delete(db);
}

/** The ChangeLog installed on `db`, if any. */
export function changeLogOf(db: SqlDatabase): ChangeLog | undefined {
  return logs.get(db);
}
