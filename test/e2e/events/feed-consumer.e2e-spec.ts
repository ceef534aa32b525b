/**
 * The change feed as it will be used (issue 29, point 6; docs/events.md, "Testing"): two
 * instances of the service on one database (two apps in this process, on the same SQLite file or
 * MySQL database), writers sending a seeded mix of every kind of write through either, and one
 * consumer of `/api/events` that drops its connection at random moments and resumes from its last
 * cursor on the other instance, by `Last-Event-ID`, `?after=` or pages. Once the writers are done
 * and the consumer has caught up with the feed's head:
 *
 * - it saw every position from where it started to the head, once each, in order;
 * - each answered write has exactly its events (by its `X-Request-Id`), a refused write and a
 *   replayed `Idempotency-Key` none;
 * - each record's events follow its versions one by one, `created` first and `deleted` last;
 * - the records rebuilt from the start's and the events equal what `show` answers, ETags too.
 *
 * The seed is printed; `FEED_SEED=<seed>` makes the same draws again (each writer's kinds of
 * write, values and instances, the consumer's sessions and drops); which records a write finds
 * still depends on what the other writers had done by then.
 */
import { AddressInfo } from 'node:net';
import { seededRandom } from '../../sources';
import type { FeedEvent } from '../../sources';
import { HOOK_TIMEOUT, TestApp, testDatabase } from '../support/harness';
import { GENRES, TWO_PHONES, USERS, marbleRow, movieLinks, movieRow } from '../support/fixtures';
import { expectJson } from '../support/http';
import { feedHead, listening, openStream } from './sse';
import { Change, LiveIds, WRITTEN, Writer, change, pathOf } from './feed-workload';

const SEED = Number(process.env.FEED_SEED ?? Math.floor(Math.random() * 2 ** 31));
const WRITERS = 6;
const WRITES_EACH = 50;
/** A few seconds on a quiet machine; a loaded one (CI's two cores) may take many times that. */
const TEST_TIMEOUT = 120_000;

/** An event as the feed sends it (`at` and `actor` are not looked at here). */
type Event = FeedEvent;

/** What the API shows of a record: the body and its ETag. */
type Shown = { record: unknown; etag: string | undefined };

const SEED_ROWS = {
  users: USERS,
  genres: GENRES,
  marbles: [1, 2, 3, 4].map((id) => marbleRow(id, `Seeded ${id}`)),
  emails: [1, 2, 3].map((id) => ({
    id,
    email: `seeded${id}@example.com`,
    is_primary: false,
    user_id: id,
  })),
  phone_numbers: TWO_PHONES,
  movies: [movieRow(1, 'Seeded film'), movieRow(2, 'Another film')],
  genres_movies: movieLinks('genre_id', [1, 2], [2, 1]),
};

describe('change feed: writers on two instances, a consumer that drops and resumes', () => {
  const apps = [new TestApp(), new TestApp()];
  const ports: number[] = [];

  beforeAll(async () => {
    // One database for both: the second starts on what the first made.
    const database = testDatabase();
    for (const app of apps) {
      await app.start({ database });
      ports.push(((await listening(app)).address() as AddressInfo).port);
    }
    await apps[0].insertAll(SEED_ROWS);
  }, HOOK_TIMEOUT);

  afterAll(() => Promise.all(apps.map((app) => app.close())), HOOK_TIMEOUT);

  /** Every record of the written collections, as `show` answers it on `app`. */
  async function records(app: TestApp): Promise<Map<string, Shown>> {
    const shown = new Map<string, Shown>();
    for (const collection of WRITTEN) {
      const ids: number[] = [];
      for (let page = 1; ; page++) {
        const res = await app.http().get(`${pathOf(collection)}?page_size=40&page=${page}`);
        expectJson(res, 200);
        // Movies answer a bare array of them all; the others a page.
        const list = (Array.isArray(res.body) ? res.body : res.body.results) as { id: number }[];
        ids.push(...list.map((r) => r.id));
        if (Array.isArray(res.body) || !res.body.next) break;
      }
      for (const id of ids) {
        const res = await app.http().get(`${pathOf(collection)}/${id}`);
        expectJson(res, 200);
        shown.set(`${collection} ${id}`, { record: res.body, etag: res.headers.etag });
      }
    }
    return shown;
  }

  it(
    'should give a consumer that drops and resumes every change once, in order, to rebuild the tables',
    async () => {
      console.log(`feed-consumer: seed ${SEED} (FEED_SEED=${SEED} replays it)`);
      const start = await feedHead(apps[0]);
      const before = await records(apps[0]);

      // The writers.
      const live = new LiveIds();
      for (const collection of WRITTEN) {
        live.add(
          collection,
          [...before.keys()]
            .filter((k) => k.startsWith(`${collection} `))
            .map((k) => Number(k.split(' ')[1])),
        );
      }
      const answered = new Map<string, Change[]>();
      const refused: string[] = [];
      async function write(w: number): Promise<void> {
        const random = seededRandom(SEED + 1 + w);
        const writer = new Writer(random, live, `w${w}`);
        for (let i = 0; i < WRITES_EACH; i++) {
          const call = writer.next();
          const via = random.int(0, 1);
          const res = await apps[via].request(call);
          const requestId = call.headers['X-Request-Id'];
          if (!call.statuses.includes(res.status)) {
            throw new Error(`${requestId}: ${call.method} ${call.path}: ${res.status} ${res.text}`);
          }
          const changes = call.changes(res.status, res.body as Record<string, unknown>);
          if (changes.length === 0) refused.push(requestId);
          answered.set(requestId, changes);
          for (const made of changes.filter((c) => c.includes(' created '))) {
            const [collection, , id] = made.split(' ');
            live.add(collection as (typeof WRITTEN)[number], [Number(id)]);
          }
          if (call.replay) {
            const again = `${requestId}-again`;
            const replayed = await apps[1 - via].request({
              ...call,
              headers: { ...call.headers, 'X-Request-Id': again },
            });
            expect([replayed.status, replayed.headers['idempotent-replayed']]).toEqual([
              201,
              'true',
            ]);
            answered.set(again, []);
          }
        }
      }

      // The consumer: sessions on either instance in turn, each dropped at a random moment.
      const random = seededRandom(SEED);
      const seen: Event[] = [];
      let cursor = start;
      let target: number | undefined;
      /** Once the head is known, the consumer has this long to reach it. */
      let caughtUpBy = Infinity;
      const sessions = { 'Last-Event-ID': 0, after: 0, page: 0 };
      const take = (events: Event[]) => {
        seen.push(...events);
        if (events.length > 0) cursor = Number(events[events.length - 1].id);
      };
      async function consume(): Promise<void> {
        let waitNext = false;
        for (let session = 0; target === undefined || cursor < target; session++) {
          if (target !== undefined && Date.now() > caughtUpBy) {
            throw new Error(`the consumer is at ${cursor}, the feed's head at ${target}`);
          }
          const app = session % 2;
          const mode = waitNext ? random.int(0, 1) : random.int(0, 2);
          if (mode === 2) {
            sessions.page++;
            const limit = random.int(1, 50);
            const res = await apps[app].http().get(`/api/events?after=${cursor}&limit=${limit}`);
            expectJson(res, 200);
            const results = res.body.results as Event[];
            take(results);
            // The next page starts where `next` says: after the page, or at the head it had read.
            cursor = Number(new URL(res.body.next as string).searchParams.get('after'));
            waitNext = results.length < limit;
            continue;
          }
          waitNext = false;
          const resume = mode === 0 ? 'Last-Event-ID' : 'after';
          sessions[resume]++;
          const stream = await openStream(
            ports[app],
            mode === 0 ? '/api/events' : `/api/events?after=${cursor}`,
            mode === 0 ? { 'Last-Event-ID': String(cursor) } : {},
          );
          expect(stream.status).toBe(200);
          // Dropped after a few events or a few milliseconds, mid-event perhaps; or caught up.
          const count = random.int(1, 20);
          await stream.within(
            (s) =>
              s.events.length >= count ||
              (target !== undefined && Number(s.events.at(-1)?.id ?? cursor) >= target),
            random.int(1, 40),
          );
          stream.close();
          for (const { id, data } of stream.events) expect(data.id).toBe(id);
          take(stream.events.map((e) => e.data as unknown as Event));
        }
      }

      const began = Date.now();
      const consumer = consume();
      consumer.catch(() => undefined); // awaited below
      try {
        await Promise.all(Array.from({ length: WRITERS }, (_, w) => write(w)));
      } finally {
        // Caught up: the head once every committed event has its position.
        target = await feedHead(apps[1]);
        caughtUpBy = Date.now() + 20_000;
      }
      await consumer;
      console.log(
        `feed-consumer: seed ${SEED}: ${answered.size} writes (${refused.length} refused), ` +
          `${seen.length} events, sessions ${JSON.stringify(sessions)}, in ${Date.now() - began} ms`,
      );

      // Every position from the start to the head, once each, in order.
      expect(seen.map((e) => Number(e.id))).toEqual(
        Array.from({ length: target - start }, (_, i) => start + 1 + i),
      );

      // Each answered write has exactly its events; refused ones and replays none.
      const byRequest = new Map<string, Change[]>();
      for (const e of seen) {
        const list = byRequest.get(String(e.request_id)) ?? [];
        list.push(change(e.collection, e.action, e.record_id));
        byRequest.set(String(e.request_id), list);
      }
      const feedOf = (requestId: string) => [...(byRequest.get(requestId) ?? [])].sort();
      expect(Object.fromEntries([...answered.keys()].map((id) => [id, feedOf(id)]))).toEqual(
        Object.fromEntries(answered),
      );
      expect([...byRequest.keys()].filter((id) => !answered.has(id))).toEqual([]);

      // Each record's events follow its versions ("<id>.<version>"), created first, deleted last.
      const byRecord = new Map<string, Event[]>();
      for (const e of seen) {
        const key = `${e.collection} ${e.record_id}`;
        byRecord.set(key, [...(byRecord.get(key) ?? []), e]);
      }
      const disorder: string[] = [];
      for (const [key, events] of byRecord) {
        events.forEach((e, i) => {
          const version = Number(/\.(\d+)"$/.exec(e.etag ?? '')?.[1]);
          const previous = Number(/\.(\d+)"$/.exec(events[i - 1]?.etag ?? '')?.[1]);
          if (
            (e.action === 'created' && i !== 0) ||
            (e.action === 'deleted' && i !== events.length - 1) ||
            (e.action === 'updated' && i > 0 && version !== previous + 1)
          ) {
            disorder.push(`${key}: ${events.map((x) => `${x.action} ${x.etag ?? ''}`).join(', ')}`);
          }
        });
      }
      expect(disorder).toEqual([]);

      // The records as they were, with the events applied in order, are what the API shows.
      const rebuilt = new Map(before);
      for (const e of seen) {
        const key = `${e.collection} ${e.record_id}`;
        if (e.action === 'deleted') rebuilt.delete(key);
        else rebuilt.set(key, { record: e.record, etag: e.etag });
      }
      const now = await records(apps[1]);
      expect(Object.fromEntries(rebuilt)).toEqual(Object.fromEntries(now));
    },
    TEST_TIMEOUT,
  );
});
