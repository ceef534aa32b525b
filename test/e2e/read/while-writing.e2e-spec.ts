/**
 * Reads do not wait behind writes: while another connection (another process, in production)
 * holds a write open, reads answer at once with the last committed state, and a write of this
 * service waits for the lock without stopping the reads. On SQLite this is WAL mode with a
 * read connection of its own; on MySQL, InnoDB's consistent reads.
 *
 * No timing is asserted: the outside write is released only after the reads have answered, so
 * a read that waited for it would never answer and the test would time out.
 */
import BetterSqlite3 from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import { firstNodeOf } from '../../../scripts/test-database';
import { ANN, marbleRow } from '../support/fixtures';
import { useApp } from '../support/harness';

/** A transaction on a connection of its own, holding a write on marble 1 until released. */
interface OutsideWrite {
  commit(): Promise<void>;
}

async function holdWrite(dialect: string, database: string): Promise<OutsideWrite> {
  const sql = 'UPDATE marbles SET name = ? WHERE id = 1';
  if (dialect === 'sqlite') {
    const db = new BetterSqlite3(database);
    db.exec('BEGIN IMMEDIATE');
    db.prepare(sql).run('Changed outside');
    return {
      commit: async () => {
        db.exec('COMMIT');
        db.close();
      },
    };
  }
  const connection = await createConnection(firstNodeOf(process.env.TEST_MYSQL_URL!));
  await connection.query('BEGIN');
  await connection.query(sql, ['Changed outside']);
  return {
    commit: async () => {
      await connection.query('COMMIT');
      await connection.end();
    },
  };
}

describe('reads while another connection writes', () => {
  const t = useApp({ seedEach: { users: [ANN], marbles: [marbleRow(1, 'Amber')] } });
  let outside: OutsideWrite;

  beforeEach(async () => {
    outside = await holdWrite(t.dialect, String(t.dataSource.options.database));
  });

  afterEach(() => outside.commit().catch(() => undefined));

  it('should answer a read at once with the last committed state', async () => {
    const show = await t.http().get('/api/demo/marbles/1');
    expect(show.status).toBe(200);
    expect(show.body.name).toBe('Amber');
    const list = await t.http().get('/api/demo/marbles');
    expect(list.status).toBe(200);
    expect(list.body.results.map((m: { name: string }) => m.name)).toEqual(['Amber']);
    await outside.commit();
    expect((await t.http().get('/api/demo/marbles/1')).body.name).toBe('Changed outside');
  }, 30_000);

  it("should keep answering reads while one of this service's writes waits for the lock", async () => {
    // On SQLite the whole file is locked, so this create waits; on MySQL it takes another row.
    const create = t.http().post('/api/demo/marbles').send({ name: 'Ruby', user_id: 1 });
    const pending = create.then((res) => res);
    for (let i = 0; i < 3; i++) {
      const res = await t.http().get('/api/demo/marbles/1');
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Amber');
    }
    await outside.commit();
    const created = await pending;
    expect(created.status).toBe(201);
    expect(created.body.name).toBe('Ruby');
    const list = await t.http().get('/api/demo/marbles?ordering=id');
    expect(list.body.results.map((m: { name: string }) => m.name)).toEqual([
      'Changed outside',
      'Ruby',
    ]);
  }, 30_000);
});
