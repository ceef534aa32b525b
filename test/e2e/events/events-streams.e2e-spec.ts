/**
 * The change feed's streams and pages around the edges (docs/events.md): the heartbeat comment,
 * a consumer that does not read (closed, not buffered; it resumes and loses nothing), the HTML
 * page, and the `.xml` / `.json` suffixes on both routes. The app runs with a short heartbeat
 * and a small bound on unsent bytes, given through its configuration.
 */
import type { Server } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { EventsRuntime } from '../../../src/events/events.module';
import { loadConfig } from '../../sources';
import request from 'supertest';
import { useApp } from '../support/harness';
import { USERS, marbleRow } from '../support/fixtures';
import { expectJson } from '../support/http';
import { feedHead, listening, openStream } from './sse';

type Event = Record<string, unknown>;

const HEARTBEAT_MS = 100;
const MAX_UNSENT = 4096;

describe('change feed: streams and pages', () => {
  const t = useApp({
    events: { ...loadConfig({}).events, heartbeatMs: HEARTBEAT_MS, maxUnsentBytes: MAX_UNSENT },
    seedEach: { users: USERS, marbles: [marbleRow(7, 'Amber')] },
  });
  let server: Server;

  beforeAll(async () => {
    server = await listening(t);
  });

  const head = () => feedHead(t);

  /** The events after `after` as a JSON page, once there are `count`. */
  async function pageAfter(after: number, count: number): Promise<Event[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await t.http().get(`/api/events?after=${after}&limit=1000`);
      expectJson(res, 200);
      const results = res.body.results as Event[];
      if (results.length >= count || Date.now() > deadline) return results;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('should send a heartbeat comment on an idle stream, at the configured interval', async () => {
    const stream = await openStream(server, '/api/events');
    try {
      expect(stream.status).toBe(200);
      // The opening comment, then heartbeats: nothing else happens on an idle feed.
      await stream.until((s) => s.notes.length >= 3);
      expect(stream.notes.slice(0, 3)).toEqual([': events', ': heartbeat', ': heartbeat']);
      expect(stream.events).toEqual([]);
    } finally {
      stream.close();
    }
  });

  it('should start a stream without a cursor after every write committed before it, positioned or not', async () => {
    // An event committed but not yet positioned when the stream is asked for (as if written from
    // outside, the lease holder's poll stopped): it belongs to the past, not to the stream.
    const sequencer = t.app.get(EventsRuntime).sequencer;
    const before = await head();
    const poll = jest.spyOn(sequencer, 'tick').mockResolvedValue(undefined);
    try {
      await t.insert('record_event_outbox', [
        { collection: 'marbles', action: 'deleted', record_id: 99, at: Date.now() },
      ]);
      const stream = await openStream(server, '/api/events');
      try {
        expect(stream.status).toBe(200);
        const res = await t.http().patch('/api/demo/marbles/7').send({ radius_mm: 14 });
        expect(res.status).toBe(200);
        await stream.until((s) => s.events.length >= 1);
        expect(stream.events.map((e) => [e.id, e.event, e.data.record_id])).toEqual([
          [String(before + 2), 'updated', 7],
        ]);
      } finally {
        stream.close();
      }
    } finally {
      poll.mockRestore();
    }
  });

  it('should close a stream whose consumer does not read, and lose nothing when it resumes', async () => {
    const hub = t.app.get(EventsRuntime).hub;
    const from = await head();
    const idle = await openStream(server, '/api/demo/marbles/events', {}, { reading: false });
    try {
      await waitUntil(() => hub.size === 1, 'the stream open');
      // Big events (10 000-character descriptions): far more than the socket's buffers hold.
      const description = 'x'.repeat(10_000);
      const created: number[] = [];
      for (let round = 0; round < 5; round++) {
        const res = await t
          .http()
          .post('/api/demo/marbles')
          .send(Array.from({ length: 90 }, (_, i) => ({ name: `M${round}-${i}`, description })));
        expect(res.status).toBe(201);
        created.push(...(res.body.records as { id: number }[]).map((r) => r.id));
      }
      const feed = await pageAfter(from, created.length);
      expect(feed.map((e) => e.record_id)).toEqual(created);
      // The service closed it rather than keep what it does not read.
      await waitUntil(() => hub.size === 0, 'the stream closed');

      // It connects again with the last id it had (none: the cursor it started from), and
      // catching up it is sent everything at its own pace.
      const again = await openStream(server, '/api/demo/marbles/events', {
        'Last-Event-ID': String(from),
      });
      try {
        await again.until((s) => s.events.length >= created.length);
        expect(again.ended).toBe(false);
        expect(again.events.map((e) => e.id)).toEqual(feed.map((e) => e.id));
        expect(again.events.map((e) => e.data.record_id)).toEqual(created);
      } finally {
        again.close();
      }
    } finally {
      idle.close();
    }
  });

  it('should serve /api/events and {collection}/events with .xml and .json suffixes', async () => {
    const from = await head();
    expect((await t.http().patch('/api/demo/marbles/7').send({ radius_mm: 4 })).status).toBe(200);
    const [event] = await pageAfter(from, 1);
    for (const path of ['/api/events', '/api/demo/marbles/events']) {
      const xml = await t.http().get(`${path}.xml?after=${from}`);
      expect([path, xml.status, xml.headers['content-type']]).toEqual([
        path,
        200,
        'application/xml; charset=utf-8',
      ]);
      expect(xml.text).toContain(
        `<results type="array"><result><id>${event.id as string}</id><collection>marbles</collection>` +
          '<action>updated</action><record-id type="integer">7</record-id><record><id type="integer">7</id>',
      );
      // `next` keeps the way the format was asked for.
      expect(xml.text).toContain(`<next>http://127.0.0.1:`);
      expect(xml.text).toMatch(new RegExp(`${path}\\.xml\\?after=${event.id as string}</next>`));
      const json = await t.http().get(`${path}.json?after=${from}`);
      expectJson(json, 200);
      expect((json.body.results as Event[]).map((e) => e.id)).toEqual([event.id]);
    }
    expect((await t.http().get('/api/events.csv')).status).toBe(406);
  });

  /**
   * Requests written one after the other on one keep-alive connection, each sent once the answer
   * before it is complete: the answers' heads (and bodies, which the test reads as text).
   */
  async function onOneConnection(requests: string[]): Promise<string[]> {
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const answers: string[] = [];
    try {
      for (const [i, text] of requests.entries()) {
        const last = i === requests.length - 1;
        socket.write(`${text}Host: 127.0.0.1\r\n${last ? 'Connection: close\r\n' : ''}\r\n`);
        // HEAD: the answer is its head. The last: whatever comes until the server closes.
        const done = await new Promise<boolean>((resolve, reject) => {
          const timer = setTimeout(() => resolve(false), 10_000);
          const check = () => {
            if (!last && received.includes('\r\n\r\n')) {
              clearTimeout(timer);
              socket.off('data', onData);
              resolve(true);
            }
          };
          const onData = (chunk: Buffer) => {
            received += chunk.toString('utf8');
            check();
          };
          socket.on('data', onData);
          socket.once('error', reject);
          if (last) {
            socket.once('close', () => {
              clearTimeout(timer);
              resolve(true);
            });
          }
          check();
        });
        if (!done) throw new Error(`no complete answer to ${text.split('\r\n')[0]}`);
        const end = last ? received.length : received.indexOf('\r\n\r\n') + 4;
        answers.push(received.slice(0, end));
        received = received.slice(end);
      }
      return answers;
    } finally {
      socket.destroy();
    }
  }

  it("should answer HEAD with a stream's headers and end, the connection serving the next request", async () => {
    const hub = t.app.get(EventsRuntime).hub;
    const [headAnswer, next] = await onOneConnection([
      'HEAD /api/events HTTP/1.1\r\nAccept: text/event-stream\r\n',
      'GET /api/events?after=0&limit=1 HTTP/1.1\r\nAccept: application/json\r\n',
    ]);
    const lines = headAnswer.split('\r\n');
    expect(lines[0]).toBe('HTTP/1.1 200 OK');
    expect(lines).toEqual(
      expect.arrayContaining([
        'Content-Type: text/event-stream; charset=utf-8',
        'Cache-Control: no-cache, no-transform',
        'Connection: keep-alive',
      ]),
    );
    expect(next.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(next).toContain('Content-Type: application/json; charset=utf-8');
    expect(JSON.parse(next.slice(next.indexOf('\r\n\r\n') + 4)).results).toEqual(expect.any(Array));
    expect(hub.size).toBe(0);
    // Through supertest as well: a HEAD that ends, with the stream's type and no body.
    const res = await t.request({
      method: 'head',
      path: '/api/demo/marbles/events',
      accept: 'text/event-stream',
    });
    expect([res.status, res.headers['content-type'], res.text]).toEqual([
      200,
      'text/event-stream; charset=utf-8',
      undefined,
    ]);
  });

  it('should take text/event-stream;q=0 as a refusal of the stream, and let a suffix or format= win over Accept', async () => {
    const from = await head();
    const pages: [string, Record<string, string>, string][] = [
      ['/api/events', { Accept: 'text/event-stream;q=0' }, 'application/json; charset=utf-8'],
      [
        '/api/events',
        { Accept: 'text/event-stream;q=0, application/xml' },
        'application/xml; charset=utf-8',
      ],
      [
        '/api/events',
        { Accept: 'application/json, text/event-stream;q=0.5' },
        'application/json; charset=utf-8',
      ],
      ['/api/events.xml', { Accept: 'text/event-stream' }, 'application/xml; charset=utf-8'],
      ['/api/events.json', { Accept: 'text/event-stream' }, 'application/json; charset=utf-8'],
      [
        '/api/demo/marbles/events.xml',
        { Accept: 'text/event-stream' },
        'application/xml; charset=utf-8',
      ],
      ['/api/events?format=xml', { Accept: 'text/event-stream' }, 'application/xml; charset=utf-8'],
    ];
    for (const [path, headers, type] of pages) {
      const joiner = path.includes('?') ? '&' : '?';
      const res = await request(server).get(`${path}${joiner}after=${from}`).set(headers);
      expect([path, headers.Accept, res.status, res.headers['content-type']]).toEqual([
        path,
        headers.Accept,
        200,
        type,
      ]);
    }
    // A stream is still a stream when it ties with another range, or is the only one named.
    for (const accept of ['text/event-stream', 'application/json, text/event-stream']) {
      const stream = await openStream(server, `/api/events?after=${from}`, { Accept: accept });
      try {
        expect([accept, stream.status]).toEqual([accept, 200]);
        await stream.until((s) => s.notes.length >= 1);
        expect(stream.notes[0]).toBe(': events');
      } finally {
        stream.close();
      }
    }
  });

  it('should draw a page of events in HTML: title, request, format links, and the events', async () => {
    const from = await head();
    expect((await t.http().patch('/api/demo/marbles/7').send({ radius_mm: 5 })).status).toBe(200);
    const events = await pageAfter(from, 1);
    const pages: [string, string][] = [
      ['/api/events', 'The change feed of every collection'],
      ['/api/demo/marbles/events', 'The change feed of marbles'],
    ];
    for (const [path, title] of pages) {
      // HTML is no medium of the OpenAPI document: asked without the harness's contract check.
      const res = await request(server).get(`${path}?after=${from}`).set('Accept', 'text/html');
      expect([path, res.status, res.headers['content-type']]).toEqual([
        path,
        200,
        'text/html; charset=utf-8',
      ]);
      const page = res.text;
      expect(/<h1>([^<]*)<\/h1>/.exec(page)?.[1]).toBe(title);
      expect(page).toContain(`<main id="main" data-path="${path}"`);
      expect(page).toContain(`<code class="request-line">GET ${path}?after=${from}</code>`);
      // The other formats of the same page, each of which answers.
      const links = [...page.matchAll(/<a href="([^"]*)">(JSON|XML)<\/a>/g)].map(
        ([, href, label]) => [label, href.replace(/&amp;/g, '&')],
      );
      expect(links).toEqual([
        ['JSON', `${path}.json?after=${from}`],
        ['XML', `${path}.xml?after=${from}`],
      ]);
      // No CSV: the feed answers none (a collection's feed page offered a link to a 406).
      expect(page).not.toMatch(/>CSV<\/a>/);
      for (const [, href] of links) expect((await t.http().get(href)).status).toBe(200);
      // The response body as JSON, escaped: the events of the JSON page.
      const body =
        /<summary>JSON<\/summary>\s*<pre class="code" tabindex="0"><code>([\s\S]*?)<\/code><\/pre>/.exec(
          page,
        )?.[1];
      const shown = JSON.parse(unescapeHtml(body ?? '')) as { results: Event[]; next: string };
      expect(shown.results).toEqual(events);
      expect(shown.next).toMatch(new RegExp(`${path}\\?after=${events[0].id as string}$`));
      // The events as a table, newest first, each row's record linked; the stream starts after
      // the page, from its `next` cursor; the description's code spans are code.
      const rows = [...page.matchAll(/<tr data-id="(\d+)">([\s\S]*?)<\/tr>/g)];
      expect(rows.map(([, id]) => id)).toEqual([events[0].id]);
      expect(rows[0][2]).toContain('<a href="/api/demo/marbles/7">7</a>');
      expect(rows[0][2]).toContain('<span class="action action-updated">updated</span>');
      expect(page).toContain(`data-after="${events[0].id as string}"`);
      expect(page).toMatch(/<p class="empty" id="feed-empty"\s+hidden\s*>/);
      // The streams' own heartbeat (this app's: 0.1 s).
      expect(page).toContain(`a heartbeat every ${HEARTBEAT_MS / 1000} s keeps the stream open`);
      expect(page).toContain('<code>Accept: text/event-stream</code>');
      expect(page).not.toMatch(/<p class="description">[^<]*`/);
    }
    // Newest first: two more events, on the page after the first.
    expect((await t.http().patch('/api/demo/marbles/7').send({ radius_mm: 6 })).status).toBe(200);
    expect((await t.http().delete('/api/demo/marbles/7')).status).toBe(204);
    const more = await pageAfter(from, 3);
    const res = await request(server).get(`/api/events?after=${from}`).set('Accept', 'text/html');
    const rows = [...res.text.matchAll(/<tr data-id="(\d+)">([\s\S]*?)<\/tr>/g)];
    expect(rows.map(([, id]) => id)).toEqual(more.map((e) => e.id).reverse());
    // A deleted record's row names it without a link (its page is a 404).
    expect(rows[0][2]).toContain('<td>7</td>');
    expect(rows[0][2]).toContain('action-deleted');
  });

  it('should say what makes an event on a page without any', async () => {
    const from = await head();
    const res = await request(server).get(`/api/events?after=${from}`).set('Accept', 'text/html');
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/<tr data-id=/);
    const empty = /<p class="empty" id="feed-empty"\s*>\s*([^<]*?)\s*<\/p>/.exec(res.text);
    expect(empty?.[1].replace(/\s+/g, ' ')).toBe(
      'No events yet. Every record created, updated or deleted through the API is an event ' +
        '(bulk writes and the marble actions too, one per record), in the order the changes were ' +
        'committed; they appear here as they happen.',
    );
    expect(res.text).toContain(`data-after="${from}"`);
    expect(res.text).toMatch(/<script src="\/assets\/feed\.[0-9a-f]{12}\.js" defer><\/script>/);
  });
});

/** Waits for `check` to hold, checking on every turn of the event loop's timers. */
async function waitUntil(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function unescapeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
