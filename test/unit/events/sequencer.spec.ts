import { Sequencer } from '../../../src/events/sequencer';
import { Row, RunResult, SqlDatabase, Tx } from '../../../src/rest/db/sql-database';

/**
 * A database whose outbox is a counter: every nudge's write added one event, and each positioning
 * round (one transaction) moves every event waiting into the feed. It counts the rounds.
 */
class Outbox {
  waiting = 0;
  head = 0;
  rounds = 0;

  readonly db = {
    dialect: 'mysql',
    quote: (name: string) => `\`${name}\``,
    query: async (): Promise<Row[]> => (this.waiting > 0 ? [{ id: 1 }] : []),
    write: async (): Promise<RunResult> => ({ rows: [], affected: 0, insertId: 0 }),
    transaction: async <T>(work: (tx: Tx) => Promise<T>): Promise<T> => {
      this.rounds++;
      return work({
        run: async (sql: string): Promise<RunResult> => {
          if (sql.startsWith('SELECT `last_position`')) {
            return { rows: [{ head: this.head }], affected: 0, insertId: 0 };
          }
          if (sql.startsWith('SELECT `id`')) {
            const rows = Array.from({ length: this.waiting }, (_, i) => ({
              id: this.head + i + 1,
            }));
            return { rows, affected: 0, insertId: 0 };
          }
          if (sql.startsWith('INSERT INTO `record_events`')) {
            return { rows: [], affected: this.waiting, insertId: 0 };
          }
          if (sql.startsWith('DELETE FROM `record_event_outbox`')) {
            const positioned = this.waiting;
            this.head += positioned;
            this.waiting = 0;
            return { rows: [], affected: positioned, insertId: 0 };
          }
          return { rows: [], affected: 1, insertId: 0 };
        },
        afterCommit: () => undefined,
        withCommit: () => undefined,
      });
    },
    unitOfWork: <T>(work: () => Promise<T>) => work(),
  } as unknown as SqlDatabase;

  /** A write of this instance committed an event: the nudge its after-commit callback gives. */
  committed(sequencer: Sequencer): void {
    this.waiting++;
    sequencer.nudge();
  }
}

describe('Sequencer: positioning rounds under load', () => {
  const GAP = 10;
  let outbox: Outbox;
  let sequencer: Sequencer;

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    outbox = new Outbox();
    sequencer = new Sequencer(outbox.db, {
      everyMs: 60_000,
      leaseMs: 120_000,
      retentionMs: 3_600_000,
      purgeEveryMs: 3_600_000,
      gapMs: GAP,
    });
  });

  afterEach(async () => {
    await sequencer.stop();
    jest.useRealTimers();
  });

  it('should position a write after a quiet spell at once, in a round of its own', async () => {
    outbox.committed(sequencer);
    await jest.advanceTimersByTimeAsync(0);
    expect([outbox.rounds, outbox.head, outbox.waiting]).toEqual([1, 1, 0]);
  });

  it('should position the writes that commit within one gap together, one round per gap', async () => {
    outbox.committed(sequencer);
    await jest.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 30; i++) {
      outbox.committed(sequencer);
      await jest.advanceTimersByTimeAsync(GAP / 5);
    }
    await jest.advanceTimersByTimeAsync(GAP);
    // 31 writes over 60 ms: the first at once, then one round per gap, never one per write.
    expect(outbox.head).toBe(31);
    expect(outbox.waiting).toBe(0);
    expect(outbox.rounds).toBeGreaterThanOrEqual(6);
    expect(outbox.rounds).toBeLessThanOrEqual(8);
  });

  it('should position what waits for the gap before it stops, and put nothing off after', async () => {
    outbox.committed(sequencer);
    await jest.advanceTimersByTimeAsync(1);
    outbox.committed(sequencer);
    expect(outbox.waiting).toBe(1);
    await sequencer.stop();
    expect([outbox.rounds, outbox.head, outbox.waiting]).toEqual([2, 2, 0]);
    outbox.committed(sequencer);
    await jest.advanceTimersByTimeAsync(GAP * 10);
    expect([outbox.rounds, outbox.waiting]).toEqual([2, 1]);
  });

  it('should not leave a write waiting once the gap has passed', async () => {
    outbox.committed(sequencer);
    await jest.advanceTimersByTimeAsync(1);
    outbox.committed(sequencer);
    await jest.advanceTimersByTimeAsync(GAP - 2);
    expect(outbox.waiting).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect([outbox.rounds, outbox.head, outbox.waiting]).toEqual([2, 2, 0]);
  });
});
