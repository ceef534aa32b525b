/**
 * Migration 1764300000000 (the outbox gets a table of its own) on a database that already has
 * events: the positioned ones stay in `record_events` under their positions, keeping their outbox
 * ids; those still waiting for a position move to `record_event_outbox` with their ids, and the
 * next id follows them. Its `down` puts them back as they were. On the test runner's database
 * kind: SQLite (a file of its own) or MySQL (a database of its own on TEST_MYSQL_URL's server; on
 * a Galera cluster ids step by the cluster's size, so the test reads the ids it was given).
 */
import { MIGRATIONS } from '../../sources';
import { useMigrationDatabase } from '../support/migration-database';

/** An event's columns, as the test writes and reads them. */
const event = (recordId: number) => ({
  collection: 'marbles',
  action: 'updated',
  record_id: recordId,
  etag: `"${recordId}.2"`,
  at: 1764300000000 + recordId,
  request_id: `req-${recordId}`,
  actor: null,
});

describe('migration 1764300000000: the outbox gets a table of its own', () => {
  // Every migration before this one.
  const db = useMigrationDatabase('migration', 'EventOutbox1764300000000');
  const BEFORE = db.at;
  const q = (name: string) => db.q(name);
  const list = (columns: string[]) => columns.map(q).join(', ');
  const COLUMNS = Object.keys(event(0));
  const rows = async (sql: string) =>
    ((await db.dataSource.query(sql)) as Record<string, unknown>[]).map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null ? v : String(v)])),
    );
  const asText = (values: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === null ? v : String(v)]));

  /** The outbox ids of events 1 to 5, in order, as the database gave them. */
  let ids: string[] = [];

  it('should keep positioned events under their positions and move waiting ones to the outbox', async () => {
    // Events 1 to 5: 1, 2 and 4 positioned (as 1, 3 and 2), 3 and 5 still waiting.
    const positions = [1, 3, null, 2, null];
    for (const [i, position] of positions.entries()) {
      const values = { ...event(i + 1), position };
      const keys = Object.keys(values);
      await db.dataSource.query(
        `INSERT INTO ${q('record_events')} (${list(keys)}) VALUES (${keys.map(() => '?').join(', ')})`,
        Object.values(values),
      );
    }
    ids = (await rows(`SELECT ${q('id')} FROM ${q('record_events')} ORDER BY ${q('id')}`)).map(
      (row) => row.id as string,
    );
    expect(ids).toHaveLength(5);
    // Up to this one: its `down` is then the last migration's, as the test reverts it.
    await db.migrateWith(MIGRATIONS.slice(0, BEFORE + 1));
    await db.dataSource.runMigrations();

    expect(
      await rows(
        `SELECT ${list(['position', 'outbox_id', ...COLUMNS])} FROM ${q('record_events')} ORDER BY ${q('position')}`,
      ),
    ).toEqual([
      asText({ position: 1, outbox_id: ids[0], ...event(1) }),
      asText({ position: 2, outbox_id: ids[3], ...event(4) }),
      asText({ position: 3, outbox_id: ids[1], ...event(2) }),
    ]);
    expect(
      await rows(
        `SELECT ${list(['id', ...COLUMNS])} FROM ${q('record_event_outbox')} ORDER BY ${q('id')}`,
      ),
    ).toEqual([asText({ id: ids[2], ...event(3) }), asText({ id: ids[4], ...event(5) })]);

    // A write's event after the migration: the outbox's next id, above the ones moved.
    await db.dataSource.query(
      `INSERT INTO ${q('record_event_outbox')} (${list(COLUMNS)}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
      Object.values(event(6)),
    );
    const [{ id: next }] = await rows(
      `SELECT MAX(${q('id')}) AS id FROM ${q('record_event_outbox')}`,
    );
    expect(Number(next)).toBeGreaterThan(Number(ids[4]));
    // A position is given once.
    await expect(
      db.dataSource.query(
        `INSERT INTO ${q('record_events')} (${list(['position', 'outbox_id', ...COLUMNS])})` +
          ` VALUES (2, 9, ${COLUMNS.map(() => '?').join(', ')})`,
        Object.values(event(9)),
      ),
    ).rejects.toThrow(/UNIQUE|Duplicate/);
  });

  it('should put them back as they were when reverted', async () => {
    await db.dataSource.undoLastMigration();
    const back = await rows(
      `SELECT ${list(['id', 'position', ...COLUMNS])} FROM ${q('record_events')} ORDER BY ${q('id')}`,
    );
    // Positioned first, in position order, then the outbox's, in outbox order; ids increasing.
    expect(back.map(({ id: _id, ...rest }) => rest)).toEqual([
      asText({ position: 1, ...event(1) }),
      asText({ position: 2, ...event(4) }),
      asText({ position: 3, ...event(2) }),
      asText({ position: null, ...event(3) }),
      asText({ position: null, ...event(5) }),
      asText({ position: null, ...event(6) }),
    ]);
    const tables = await db.dataSource.createQueryRunner().getTables(['record_event_outbox']);
    expect(tables).toEqual([]);
  });
});
