/**
 * The change feed (docs/events.md): an event per changed record in the write's transaction, the
 * pages and the Server-Sent Events of `/api/events` and `{collection}/events`, resuming, 410 for
 * a purged cursor, 409 for one ahead of the feed's head, 400 for a malformed one, and streams ended on shutdown.
 */
import type { Server } from 'node:http';
import { EventsRuntime } from '../../../src/events/events.module';
import { useApp } from '../support/harness';
import { USERS, marbleRow } from '../support/fixtures';
import { ISO_MS, expectJson, expectXml } from '../support/http';
import { feedHead, listening, openStream } from './sse';

type Event = Record<string, unknown>;

/** What `show` answered: the record and its ETag. */
interface Shown {
  record: unknown;
  etag: string;
}

const AMBER = marbleRow(7, 'Amber', { price: '9.23', is_discounted: false });

describe('change feed', () => {
  const t = useApp({ seedEach: { users: USERS, marbles: [AMBER] } });
  let server: Server;

  beforeAll(async () => {
    server = await listening(t);
  });

  /** The feed's head now, as a cursor. */
  async function head(): Promise<string> {
    return String(await feedHead(t));
  }

  /** The events after `after`, once there are `count` (the sequencer runs in the background). */
  async function eventsAfter(after: string, count: number, path = '/api/events'): Promise<Event[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      await t.app.get(EventsRuntime).sequencer.tick();
      const res = await t.http().get(`${path}?after=${after}`);
      expectJson(res, 200);
      const results = res.body.results as Event[];
      if (results.length >= count || Date.now() > deadline) return results;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** What `show` answers now, and its ETag. */
  async function shown(path: string): Promise<Shown> {
    const res = await t.http().get(path);
    return { record: res.body as unknown, etag: res.headers.etag as string };
  }

  /**
   * The event `n` positions after `from` of `collection`: record `id` changed by `action`, as
   * `shownAs` after it, by the request `requestId`.
   */
  function event(
    from: string,
    n: number,
    [collection, action, id]: [string, string, number],
    shownAs: Shown | undefined,
    requestId: unknown,
  ): Event {
    return {
      id: String(Number(from) + n),
      collection,
      action,
      record_id: id,
      ...(shownAs ? { record: shownAs.record, etag: shownAs.etag } : {}),
      at: expect.stringMatching(ISO_MS) as unknown,
      request_id: requestId,
      actor: null,
    };
  }

  it('should record one event per change, with the record as show answers it and its ETag', async () => {
    const from = await head();
    const created = await t.http().post('/api/demo/marbles').send({ name: 'Opal', radius_mm: 3 });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const afterCreate = await shown(`/api/demo/marbles/${id}`);
    const patched = await t
      .http()
      .patch(`/api/demo/marbles/${id}`)
      .set('X-Request-Id', 'patch-opal')
      .send({ radius_mm: 4 });
    expect(patched.status).toBe(200);
    const afterPatch = await shown(`/api/demo/marbles/${id}`);
    const adjusted = await t
      .http()
      .patch('/api/demo/marbles/7/adjust_price')
      .send({ price: '1.5' });
    expect(adjusted.status).toBe(200);
    const amber = await shown('/api/demo/marbles/7');
    expect((await t.http().delete(`/api/demo/marbles/${id}`)).status).toBe(204);

    const events = await eventsAfter(from, 4);
    expect(events).toEqual([
      event(from, 1, ['marbles', 'created', id], afterCreate, created.headers['x-request-id']),
      event(from, 2, ['marbles', 'updated', id], afterPatch, 'patch-opal'),
      event(from, 3, ['marbles', 'updated', 7], amber, adjusted.headers['x-request-id']),
      event(from, 4, ['marbles', 'deleted', id], undefined, expect.any(String)),
    ]);
  });

  it('should record one event per record of a bulk write, none for a refused or replayed one', async () => {
    const from = await head();
    const bulk = await t
      .http()
      .post('/api/demo/marbles')
      .set('Idempotency-Key', 'bulk-1')
      .send([{ name: 'A1' }, { name: 'A2' }]);
    expect(bulk.status).toBe(201);
    const replay = await t
      .http()
      .post('/api/demo/marbles')
      .set('Idempotency-Key', 'bulk-1')
      .send([{ name: 'A1' }, { name: 'A2' }]);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    // Refused: a duplicate name (400), rolled back with its event.
    expect((await t.http().post('/api/demo/marbles').send({ name: 'Amber' })).status).toBe(400);
    const ids = (bulk.body.records as { id: number }[]).map((r) => r.id);
    const destroyed = await t
      .http()
      .delete('/api/demo/marbles')
      .send([...ids, 7]);
    expect(destroyed.status).toBe(200);
    const marker = await t.http().patch('/api/demo/emails').send([]);
    expect(marker.status).toBe(400);

    const events = await eventsAfter(from, 5);
    expect(events.map((e) => [e.action, e.record_id])).toEqual([
      ['created', ids[0]],
      ['created', ids[1]],
      ['deleted', ids[0]],
      ['deleted', ids[1]],
      ['deleted', 7],
    ]);
    expect(await eventsAfter(events[4].id as string, 0)).toEqual([]);
  });

  it('should record the event of the e-mail whose primary flag a write cleared, before its own', async () => {
    const first = await t
      .http()
      .post('/api/demo/emails')
      .send({ email: 'p1@example.com', user_id: 1, is_primary: true });
    expect(first.status).toBe(201);
    const from = await head();
    const second = await t
      .http()
      .post('/api/demo/emails')
      .set('X-Request-Id', 'second-primary')
      .send({ email: 'p2@example.com', user_id: 1, is_primary: true });
    expect(second.status).toBe(201);
    const [p1, p2] = [first.body.id as number, second.body.id as number];
    const cleared = await shown(`/api/demo/emails/${p1}`);
    expect(cleared.record).toMatchObject({ id: p1, is_primary: false });
    // The cleared record changed, so did its ETag.
    expect(cleared.etag).not.toBe(first.headers.etag);
    const created = await shown(`/api/demo/emails/${p2}`);
    const back = await t
      .http()
      .patch(`/api/demo/emails/${p1}`)
      .set('X-Request-Id', 'first-again')
      .send({ is_primary: true });
    expect(back.status).toBe(200);
    const [p1Again, p2Cleared] = [
      await shown(`/api/demo/emails/${p1}`),
      await shown(`/api/demo/emails/${p2}`),
    ];

    const events = await eventsAfter(from, 4, '/api/demo/emails/events');
    expect(events).toEqual([
      event(from, 1, ['emails', 'updated', p1], cleared, 'second-primary'),
      event(from, 2, ['emails', 'created', p2], created, 'second-primary'),
      event(from, 3, ['emails', 'updated', p2], p2Cleared, 'first-again'),
      event(from, 4, ['emails', 'updated', p1], p1Again, 'first-again'),
    ]);
  });

  it('should page with limit and next, narrow by collection, and answer XML', async () => {
    const from = await head();
    const a = await t.http().post('/api/demo/emails').send({ email: 'a@example.com', user_id: 1 });
    expect(a.status).toBe(201);
    expect((await t.http().patch('/api/demo/marbles/7').send({ radius_mm: 9 })).status).toBe(200);
    const b = await t.http().post('/api/demo/emails').send({ email: 'b@example.com', user_id: 2 });
    expect(b.status).toBe(201);
    await eventsAfter(from, 3);

    const first = await t.http().get(`/api/events?after=${from}&limit=2`);
    expectJson(first, 200);
    expect((first.body.results as Event[]).map((e) => e.collection)).toEqual(['emails', 'marbles']);
    const base = (first.body.next as string).slice(0, (first.body.next as string).indexOf('/api/'));
    expect(first.body.next).toBe(`${base}/api/events?after=${Number(from) + 2}&limit=2`);
    const second = await t.http().get(first.body.next.slice(base.length));
    expect((second.body.results as Event[]).map((e) => e.id)).toEqual([String(Number(from) + 3)]);
    expect(second.body.next).toBe(`${base}/api/events?after=${Number(from) + 3}&limit=2`);

    const emails = await t.http().get(`/api/demo/emails/events?after=${from}`);
    expect((emails.body.results as Event[]).map((e) => e.record_id)).toEqual([
      a.body.id,
      b.body.id,
    ]);
    const narrowed = await t.http().get(`/api/events?after=${from}&collections=marbles`);
    expect((narrowed.body.results as Event[]).map((e) => e.record_id)).toEqual([7]);
    expect(narrowed.body.next).toBe(
      `${base}/api/events?after=${Number(from) + 3}&collections=marbles`,
    );

    const xml = await t.http().get(`/api/events?after=${from}&limit=1&format=xml`);
    expectXml(xml, 200);
    expect(xml.text).toContain('<collection>emails</collection>');
  });

  it('should refuse a malformed cursor, limit or collection with 400', async () => {
    for (const query of [
      'after=-1',
      'after=01',
      'after=x',
      'limit=0',
      'limit=1001',
      'collections=nope',
    ]) {
      const res = await t.http().get(`/api/events?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.body.message).toEqual(expect.any(String));
    }
  });

  it('should stream from the present, resume after Last-Event-ID, and send ?after=0 from the oldest', async () => {
    const stream = await openStream(server, '/api/demo/marbles/events');
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect((await t.http().patch('/api/demo/marbles/7').send({ radius_mm: 5 })).status).toBe(200);
    expect(
      (await t.http().post('/api/demo/emails').send({ email: 'c@example.com', user_id: 3 })).status,
    ).toBe(201);
    expect((await t.http().patch('/api/demo/marbles/7').send({ radius_mm: 6 })).status).toBe(200);
    await stream.until((s) => s.events.length >= 2);
    expect(stream.events.map((e) => [e.event, e.data.record_id])).toEqual([
      ['updated', 7],
      ['updated', 7],
    ]);
    expect(stream.events.map((e) => e.id)).toEqual(stream.events.map((e) => e.data.id));
    const last = stream.events[0].id;
    stream.close();

    const resumed = await openStream(server, '/api/events', { 'Last-Event-ID': last });
    await resumed.until((s) => s.events.length >= 2);
    expect(resumed.events.map((e) => e.data.collection)).toEqual(['emails', 'marbles']);
    await t.http().delete('/api/demo/marbles/7');
    await resumed.until((s) => s.events.length >= 3);
    expect(resumed.events[2].data).toMatchObject({ action: 'deleted', record_id: 7 });
    resumed.close();

    const oldest = await t.http().get('/api/events?after=0&limit=1');
    const all = await openStream(server, '/api/events?after=0');
    await all.until((s) => s.events.length > 0);
    expect(all.events[0].data).toEqual(oldest.body.results[0]);
    all.close();
  });

  it('should answer 410 for a cursor whose events were purged, and serve from 0', async () => {
    expect((await t.http().patch('/api/demo/marbles/7').send({ radius_mm: 2 })).status).toBe(200);
    await eventsAfter(await head(), 0);
    const runtime = t.app.get(EventsRuntime);
    const before = await runtime.store.bounds();
    // Everything is older than the retention a year from now.
    while ((await runtime.sequencer.purge(Date.now() + 365 * 86400_000)) > 0);
    const after = await runtime.store.bounds();
    expect(after.purgedThrough).toBe(before.head);

    const gone = await t.http().get(`/api/events?after=${after.purgedThrough - 1}&limit=5`);
    expect(gone.status).toBe(410);
    const origin = `http://${new URL(gone.request.url).host}`;
    const oldest = `${origin}/api/events?after=0&limit=5`;
    expect(gone.body).toEqual({
      message: `The events after ${after.purgedThrough - 1} are no longer kept (EVENTS_RETENTION); start again from 0, the oldest kept: ${oldest}`,
    });
    expect(gone.headers.link).toBe(
      `<${oldest}>; rel="first"; title="Start again from the oldest event kept"`,
    );
    const xml = await t.http().get(`/api/events.xml?after=${after.purgedThrough - 1}`);
    expectXml(xml, 410);
    expect(xml.text).toContain(
      `start again from 0, the oldest kept: ${origin}/api/events.xml?after=0</message>`,
    );
    // A browser gets the page of a 410 with its reason phrase, as of any other status, and a
    // link to start again from the oldest event kept (the query kept, HTML still asked for).
    const page = await t
      .http()
      .get(`/api/events?after=${after.purgedThrough - 1}&format=html`)
      .set('Accept', 'text/html');
    expect(page.status).toBe(410);
    expect(page.text).toContain('<title>410 Gone · Record collections</title>');
    expect(page.text).toContain('<h2 id="error-h">410 Gone</h2>');
    expect(page.text.replace(/\s+/g, ' ')).toContain(
      `<ul class="error-links"> <li><a href="${origin}/api/events?after=0&amp;format=html">Start again from the oldest event kept</a></li> </ul>`,
    );
    const kept = await t.http().get(`/api/events?after=${after.purgedThrough}`);
    expect(kept.status).toBe(200);
    const fromZero = await t.http().get('/api/events?after=0');
    expect(fromZero.body.results).toEqual([]);
    expect(fromZero.body.next).toMatch(new RegExp(`after=${after.head}$`));
  });

  it('should answer 409 with the head for a cursor ahead of the feed (a database reset), pages and streams alike', async () => {
    expect((await t.http().patch('/api/demo/marbles/7').send({ radius_mm: 4 })).status).toBe(200);
    await eventsAfter(await head(), 0);
    const { head: newest } = await t.app.get(EventsRuntime).store.bounds();
    const ahead = newest + 500;
    const message = (url: string) =>
      `The cursor ${ahead} is ahead of this feed, whose newest event is ${newest} (was the database reset or restored?); ` +
      `start again from 0, the oldest kept: ${url}?after=0, or from ${newest} for new events only.`;
    for (const path of ['/api/events', '/api/demo/marbles/events']) {
      const page = await t.http().get(`${path}?after=${ahead}`);
      expectJson(page, 409);
      const url = `http://${new URL(page.request.url).host}${path}`;
      expect([path, page.body]).toEqual([path, { message: message(url) }]);
      expect([path, page.headers.link]).toEqual([
        path,
        `<${url}?after=0>; rel="first"; title="Start again from the oldest event kept", ` +
          `<${url}?after=${newest}>; rel="last"; title="New events only"`,
      ]);
    }
    const feed = `http://${new URL((await t.http().get('/api')).request.url).host}/api/events`;
    const xml = await t.http().get(`/api/events.xml?after=${ahead}`);
    expectXml(xml, 409);
    expect(xml.text).toContain(`<message>${message(`${feed}.xml`)}</message>`);
    // A stream, by ?after= or by Last-Event-ID (what EventSource sends when it reconnects), is
    // refused before it starts, rather than waiting for events that will never come.
    for (const [path, headers] of [
      [`/api/events?after=${ahead}`, {}],
      ['/api/events', { 'Last-Event-ID': String(ahead) }],
    ] as const) {
      const stream = await t
        .http()
        .get(path)
        .set({ Accept: 'text/event-stream', ...headers });
      expect([path, stream.status, stream.headers['content-type']]).toEqual([
        path,
        409,
        'application/json; charset=utf-8',
      ]);
      expect(JSON.parse(stream.text)).toEqual({ message: message(feed) });
    }
    // The head itself and anything behind it stay valid: an empty page, next at the head.
    const atHead = await t.http().get(`/api/events?after=${newest}`);
    expectJson(atHead, 200);
    expect(atHead.body.results).toEqual([]);
    expect(atHead.body.next).toMatch(new RegExp(`after=${newest}$`));
  });

  it('should serve a cursor ahead of what the first read saw, once a settled read has it (a lagging writer)', async () => {
    expect((await t.http().patch('/api/demo/marbles/7').send({ radius_mm: 5 })).status).toBe(200);
    await eventsAfter(await head(), 0);
    const store = t.app.get(EventsRuntime).store;
    const real = await store.bounds();
    // The writer's plain read is one event behind (a node that took over moments ago); the
    // settled read (causal on a cluster) has the newest event, which the cursor names.
    const spy = jest
      .spyOn(store, 'bounds')
      .mockImplementation(async (settled = false) =>
        settled ? real : { ...real, head: real.head - 1 },
      );
    try {
      const page = await t.http().get(`/api/events?after=${real.head}`);
      expectJson(page, 200);
      expect(page.body.results).toEqual([]);
      expect(page.body.next).toMatch(new RegExp(`after=${real.head}$`));
      expect(spy.mock.calls.map(([settled]) => settled ?? false)).toEqual([false, true, false]);
    } finally {
      spy.mockRestore();
    }
  });

  it('should keep the routes of the records: /events is no record id', async () => {
    const res = await t.http().get('/api/demo/marbles/7');
    expect(res.status).toBe(200);
    expect((await t.http().get('/api/demo/marbles/events')).status).toBe(200);
    expect((await t.http().get('/api/plain/movies/events')).status).toBe(200);
  });

  it("should name the feed's own methods in Allow, not a record's", async () => {
    for (const path of ['/api/demo/marbles/events', '/api/plain/movies/events', '/api/events']) {
      const options = await t.http().options(path);
      expect({ path, status: options.status, allow: options.headers.allow }).toEqual({
        path,
        status: 204,
        allow: 'GET, HEAD, OPTIONS',
      });
      const post = await t.http().post(path).send({});
      expect({ path, status: post.status, allow: post.headers.allow, body: post.body }).toEqual({
        path,
        status: 405,
        allow: 'GET, HEAD, OPTIONS',
        body: { message: 'Method POST is not allowed here; allowed: GET, HEAD, OPTIONS.' },
      });
    }
  });
});
