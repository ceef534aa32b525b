/**
 * Every statement of a write failing in turn (START TRANSACTION or BEGIN, each statement of the
 * work, COMMIT), in two ways: refused before it runs (MySQL's lock wait timeout, an SQLite I/O
 * error), and run but its answer lost (MySQL: the connection lost; SQLite: an I/O error). The
 * faults come from the transaction runner's test seam (rest/db/transactions.ts, `faults`).
 *
 * After each: the answer tells the truth (503 "try again" when nothing was written, 503 "may have
 * been saved" when COMMIT ran and its answer was lost, and the write is then there; on a Galera
 * cluster a connection lost before COMMIT is run again once, and the write is stored once), the tables
 * hold exactly that, no transaction is left open, and a later write through the same pool
 * commits only itself. A keyed write is written at most once: resent with its key after a lost
 * COMMIT answer, it is replayed.
 */
import request, { Response } from 'supertest';
import { SqlDatabase, TransactionRunner, writeContext } from '../../sources';
import { marbleRow } from '../support/fixtures';
import { TestApp, useApp } from '../support/harness';
import { expectJson } from '../support/http';
import { eventually } from '../support/waits';

const UNAVAILABLE = { message: 'The database is unavailable; try again shortly.' };
const MAY_HAVE_BEEN_SAVED = {
  message:
    'The database did not confirm this write: it may have been saved. Retrying it with the same ' +
    'Idempotency-Key is safe; without one, read the record before writing again.',
};

type Kind = 'refused' | 'answer lost';

/** The error a fault of `kind` raises, as the dialect's driver would. */
function faultOf(dialect: 'mysql' | 'sqlite', kind: Kind): Error {
  if (dialect === 'sqlite') {
    return Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });
  }
  return kind === 'refused'
    ? Object.assign(new Error('Lock wait timeout exceeded; try restarting transaction'), {
        code: 'ER_LOCK_WAIT_TIMEOUT',
        errno: 1205,
      })
    : Object.assign(new Error('Connection lost: The server closed the connection.'), {
        code: 'PROTOCOL_CONNECTION_LOST',
        fatal: true,
      });
}

interface Write {
  name: string;
  send: (t: TestApp) => Promise<Response>;
  /** What the tables hold once it committed. */
  written: (t: TestApp) => Promise<void>;
  keyed: boolean;
  /** Its statements, in order, between BEGIN and its event's INSERT (the outbox's). */
  statements: RegExp[];
}

const BEGIN = /^(START TRANSACTION|BEGIN)$/;

/**
 * Whether the database is a Galera node (`wsrep_on`), whether TEST_MYSQL_URL names the cluster's
 * nodes or one of them alone: there no statement goes with a COMMIT.
 */
async function galeraNode(t: TestApp): Promise<boolean> {
  if (t.dialect !== 'mysql') return false;
  const [{ wsrep }] = await t.query('SELECT @@wsrep_on AS wsrep');
  return Number(wsrep) === 1;
}

/** Whether a write's event INSERT goes with its COMMIT: MySQL on a server that is no Galera node. */
const batchesCommit = (t: TestApp, galera: boolean) => t.dialect === 'mysql' && !galera;

/**
 * How a write commits: on one MySQL server its event's INSERT goes with the COMMIT, one text and
 * one round trip (`INSERT INTO record_event_outbox ...; COMMIT`); on SQLite, which takes one statement
 * at a time, and on a Galera cluster (MysqlSession says why), it is the statement before COMMIT.
 */
function commitOf(t: TestApp, galera: boolean): (string | RegExp)[] {
  return batchesCommit(t, galera)
    ? [/^INSERT INTO `record_event_outbox` .*; COMMIT$/s]
    : [/^INSERT INTO [`"]record_event_outbox[`"]/, 'COMMIT'];
}

/** The statement that commits: COMMIT, alone or after the event's INSERT. */
const isCommit = (sql: string) => sql === 'COMMIT' || sql.endsWith('; COMMIT');

/**
 * A fault injector that sees the statements run for a request alone: the app's background work
 * goes through the same runner (the change feed positions a write's events right after it
 * commits), and is neither counted nor failed.
 */
function ofRequests(inject: (sql: string) => Error | undefined) {
  return (sql: string) => (writeContext().requestId === null ? undefined : inject(sql));
}

const WRITES: Write[] = [
  {
    name: 'a create without a key',
    send: (t) => t.http().post('/api/demo/marbles').send({ name: 'Ruby' }),
    written: async (t) => {
      expect((await t.stored('marbles')).map((m) => m.name)).toEqual(['Amber', 'Ruby']);
    },
    keyed: false,
    // The record is read once, in the transaction, before COMMIT: for its event and the answer.
    statements: [/^INSERT INTO [`"]marbles[`"]/, /^SELECT .* FROM [`"]marbles[`"]/],
  },
  {
    name: 'a keyed action',
    send: (t) =>
      t.http().patch('/api/demo/marbles/1/toggle_is_discounted').set('Idempotency-Key', 'k-1'),
    written: async (t) => {
      const [amber] = await t.rows('marbles');
      expect([Number(amber.version), Number(amber.is_discounted)]).toEqual([2, 1]);
      expect(
        (await t.rows('idempotency_keys', 'idempotency_key')).map((r) => r.idempotency_key),
      ).toEqual(['k-1']);
    },
    keyed: true,
    statements: [
      /^SELECT .* FROM [`"]marbles[`"]/,
      /^UPDATE [`"]marbles[`"]/,
      /^SELECT .* FROM [`"]marbles[`"]/,
      /^INSERT INTO [`"]idempotency_keys[`"]/,
    ],
  },
];

describe('write faults: every statement of a write failing in turn', () => {
  const t = useApp({ seedEach: { marbles: [marbleRow(1, 'Amber', { version: 1 })] } });
  let runner: TransactionRunner;
  let galera = false;
  beforeAll(async () => {
    runner = (t.app.get(SqlDatabase) as unknown as { transactions: TransactionRunner })
      .transactions;
    galera = await galeraNode(t);
  });
  afterEach(() => (runner.faults = undefined));

  /** Nothing of the write: Amber as seeded, no key stored, no transaction open. */
  async function expectNothingWritten() {
    const marbles = await t.rows('marbles');
    expect(marbles.map((m) => [m.name, Number(m.version), Number(m.is_discounted)])).toEqual([
      ['Amber', 1, 0],
    ]);
    expect(await t.rows('idempotency_keys', 'idempotency_key')).toEqual([]);
  }

  /** A later write through the same pool commits itself alone (version 1 → 2 or 2 → 3). */
  async function expectLaterWriteAlone(versionBefore: number) {
    // None left of the failed write (the feed's sequencer may have begun one of its own since).
    const answered = await t.databaseNow();
    await eventually(async () => expect(await t.openTransactions([], answered)).toBe(0));
    const later = await t.http().patch('/api/demo/marbles/1/toggle_is_discounted');
    expectJson(later, 200);
    const [amber] = await t.rows('marbles');
    expect(Number(amber.version)).toBe(versionBefore + 1);
  }

  /** `write` sent on a table holding Amber alone, `inject` seeing (and faulting) its statements. */
  async function sendWith(write: Write, inject: (sql: string) => Error | undefined) {
    await t.fresh();
    await t.insert('marbles', [marbleRow(1, 'Amber', { version: 1 })]);
    runner.faults = ofRequests(inject);
    try {
      return await write.send(t);
    } finally {
      runner.faults = undefined;
    }
  }

  for (const write of WRITES) {
    describe(write.name, () => {
      /** The statements the write sends, seen once without a fault. */
      let statements: string[] = [];
      beforeAll(async () => {
        const seen: string[] = [];
        const res = await sendWith(write, (sql) => void seen.push(sql));
        expect(res.status).toBeLessThan(300);
        statements = seen;
      });

      it('should send BEGIN, its statements and COMMIT, in one transaction', () => {
        expect(statements).toEqual(
          [BEGIN, ...write.statements, ...commitOf(t, galera)].map((pattern) =>
            typeof pattern === 'string' ? pattern : expect.stringMatching(pattern),
          ),
        );
      });

      for (const kind of ['refused', 'answer lost'] as Kind[]) {
        it(`should leave no trace when a statement before COMMIT is ${kind}, and say "try again"`, async () => {
          for (let target = 0; target < statements.length - 1; target++) {
            let n = 0;
            const error = faultOf(t.dialect, kind);
            const res = await sendWith(write, (sql) => {
              if (n++ !== target) return undefined;
              expect(sql).toBe(statements[target]);
              if (kind === 'refused') throw error;
              return error;
            });
            if (kind === 'answer lost' && t.cluster) {
              // On a cluster a connection lost before COMMIT is run again once, at once (its
              // node may be gone; rest/db/galera.ts): the write is answered and stored once.
              expect([target, res.status]).toEqual([target, write.keyed ? 200 : 201]);
              await write.written(t);
              await expectLaterWriteAlone(write.keyed ? 2 : 1);
              continue;
            }
            expectJson(res, 503);
            expect([target, res.body]).toEqual([target, UNAVAILABLE]);
            expect(res.headers['retry-after']).toBe('5');
            await eventually(expectNothingWritten);
            await expectLaterWriteAlone(1);
          }
        });
      }

      it('should say "try again" and write nothing when COMMIT is refused', async () => {
        const error = faultOf(t.dialect, 'refused');
        const res = await sendWith(write, (sql) => {
          if (isCommit(sql)) throw error;
          return undefined;
        });
        expectJson(res, 503);
        expect(res.body).toEqual(UNAVAILABLE);
        await eventually(expectNothingWritten);
        await expectLaterWriteAlone(1);
      });

      it('should say "may have been saved" when the answer to COMMIT is lost, and it was saved', async () => {
        const error = faultOf(t.dialect, 'answer lost');
        const res = await sendWith(write, (sql) => (isCommit(sql) ? error : undefined));
        expectJson(res, 503);
        expect(res.body).toEqual(MAY_HAVE_BEEN_SAVED);
        expect(res.headers['retry-after']).toBe('5');
        await write.written(t);
        if (write.keyed) {
          // Resent with its key: the stored answer, not a second write.
          const again = await write.send(t);
          expectJson(again, 200);
          expect(again.headers['idempotent-replayed']).toBe('true');
          await write.written(t);
          await expectLaterWriteAlone(2);
        }
      });
    });
  }
  it('should commit nothing when the database itself refuses the event INSERT before COMMIT', async () => {
    // A trigger makes the server refuse the outbox's INSERT; on one MySQL server it goes in one
    // text with the COMMIT, which the server must then not run.
    const refuse =
      t.dialect === 'mysql'
        ? "FOR EACH ROW SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1205, MESSAGE_TEXT = 'refused'"
        : "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END";
    await t.fresh();
    await t.insert('marbles', [marbleRow(1, 'Amber', { version: 1 })]);
    await t.query(`CREATE TRIGGER refuse_events BEFORE INSERT ON record_event_outbox ${refuse}`);
    try {
      // Plain supertest: SQLite's refusal is a 500, which no operation documents.
      const res = await request(t.app.getHttpServer())
        .post('/api/demo/marbles')
        .send({ name: 'Ruby' });
      expect([res.status, res.body]).toEqual(
        t.dialect === 'mysql' ? [503, UNAVAILABLE] : [500, { message: 'Internal server error.' }],
      );
      await eventually(expectNothingWritten);
      await eventually(async () => expect(await t.openTransactions()).toBe(0));
    } finally {
      await t.query('DROP TRIGGER refuse_events');
    }
    await expectLaterWriteAlone(1);
  });
});
