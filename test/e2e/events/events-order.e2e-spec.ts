/**
 * The cursor has no gap when transactions commit in another order than they started
 * (docs/events.md). Transaction A changes marble 7 and adds its event first, so its outbox id is
 * the lower; it stays open while B changes marble 8 through the API and commits. A consumer that
 * has read B's event, and holds B's cursor, must still get A's event once A commits: a reader of
 * "outbox ids above the highest seen" would lose it. On SQLite one transaction writes at a time,
 * so B waits for A and the ids follow the commit order; the test shows that too.
 */
import { EventsRuntime } from '../../../src/events/events.module';
import { MARBLES } from '../../../src/marbles/marbles.resource';
import { SqlDatabase } from '../../../src/rest/db/sql-database';
import { useApp } from '../support/harness';
import { USERS, marbleRow } from '../support/fixtures';

type Event = Record<string, unknown>;

describe('change feed: transactions that commit out of order', () => {
  const t = useApp({
    seedEach: { users: USERS, marbles: [marbleRow(7, 'Amber'), marbleRow(8, 'Cobalt')] },
  });

  async function page(after: string): Promise<Event[]> {
    await t.app.get(EventsRuntime).sequencer.tick();
    const res = await t.http().get(`/api/events?after=${after}`);
    expect(res.status).toBe(200);
    return res.body.results as Event[];
  }

  /** The events after `after`, once `check` holds for them. */
  async function until(after: string, check: (events: Event[]) => boolean): Promise<Event[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const events = await page(after);
      if (check(events)) return events;
      if (Date.now() > deadline) throw new Error(`feed: ${JSON.stringify(events)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("should position a write's events as it commits, without the sequencer's poll", async () => {
    const runtime = t.app.get(EventsRuntime);
    await runtime.sequencer.tick();
    const start = String((await runtime.store.bounds()).head);
    // The poll does nothing from here on: only the writes' own nudges position their events,
    // also those of writes that commit while a batch runs.
    const poll = jest.spyOn(runtime.sequencer, 'tick').mockResolvedValue();
    try {
      const writes = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          t
            .http()
            .patch(`/api/demo/marbles/${7 + (i % 2)}`)
            .send({ radius_mm: 20 + i }),
        ),
      );
      expect(writes.map((res) => res.status)).toEqual(writes.map(() => 200));
      const events = await until(start, (list) => list.length === 12);
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => String(Number(start) + i + 1)));
      const db = t.app.get(SqlDatabase);
      const [{ n }] = await t.query(`SELECT COUNT(*) AS n FROM ${db.quote('record_event_outbox')}`);
      expect(Number(n)).toBe(0);
    } finally {
      poll.mockRestore();
    }
  });

  it('should give a consumer holding a later cursor the event of the transaction that committed last', async () => {
    const runtime = t.app.get(EventsRuntime);
    const db = t.app.get(SqlDatabase);
    await runtime.sequencer.tick();
    const start = String((await runtime.store.bounds()).head);
    const commits: string[] = [];
    let outboxA = 0;

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const inA = new Promise<void>((resolve) => (written = resolve));
    const a = db
      .transaction(async (tx) => {
        await tx.run(
          `UPDATE ${db.quote('marbles')} SET ${db.quote('radius_mm')} = 11,` +
            ` ${db.quote('version')} = ${db.quote('version')} + 1 WHERE ${db.quote('id')} = 7`,
        );
        await runtime.recorder.recorded(tx, MARBLES, 'updated', [7]);
        const { rows } = await tx.run(
          `SELECT MAX(${db.quote('id')}) AS id FROM ${db.quote('record_event_outbox')}`,
        );
        outboxA = Number(rows[0].id);
        written();
        await gate;
      })
      .then(() => commits.push('A'));
    await inA;

    const b = t
      .http()
      .patch('/api/demo/marbles/8')
      .send({ radius_mm: 12 })
      .then((res) => {
        commits.push('B');
        return res;
      });

    if (t.dialect === 'mysql') {
      // B commits while A is open: the consumer reads B's event and keeps its cursor.
      expect((await b).status).toBe(200);
      const seen = await until(start, (events) => events.length === 1);
      expect(seen.map((e) => e.record_id)).toEqual([8]);
      const cursor = seen[0].id as string;
      const [{ id: outboxB }] = await t.query(
        'SELECT MAX(outbox_id) AS id FROM record_events WHERE record_id = 8',
      );
      // A's outbox id is the lower one: "ids above the highest seen" would skip it.
      expect(outboxA).toBeLessThan(Number(outboxB));
      release();
      await a;
      expect(commits).toEqual(['B', 'A']);
      const resumed = await until(cursor, (events) => events.length === 1);
      expect(resumed).toEqual([
        expect.objectContaining({
          action: 'updated',
          record_id: 7,
          id: String(Number(cursor) + 1),
        }),
      ]);
    } else {
      release();
      await a;
      expect((await b).status).toBe(200);
      expect(commits).toEqual(['A', 'B']);
      const events = await until(start, (list) => list.length === 2);
      expect(events.map((e) => e.record_id)).toEqual([7, 8]);
    }
    const all = await page(start);
    expect(all.map((e) => e.record_id).sort()).toEqual([7, 8]);
    expect((all.find((e) => e.record_id === 7)!.record as Event).radius_mm).toBe(11);
  });
});
