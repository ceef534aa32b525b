/**
 * The live notice of the browsable pages (docs/events.md, "On the browsable pages"), as the HTML
 * carries it: the list and record pages of a collection hold an empty polite live region with the
 * collection's feed and the feed's position when the page's data was read, and the notice's
 * script; a write acknowledged before the page was asked for is at or below that position (so the
 * page's own write never announces itself); error pages, other pages, JSON, a feed that is off
 * and reads that need a token have none. The browser side: test/ops/browser/browsable-live.spec.ts.
 * The OpenAPI document describes no HTML: pages go through plain supertest.
 */
import request from 'supertest';
import { EventsRuntime } from '../../../src/events/events.module';
import { loadConfig } from '../../sources';
import { TestApp, useApp } from '../support/harness';
import { USERS, marbleRow } from '../support/fixtures';

const AMBER = marbleRow(7, 'Amber', { price: '9.23', is_discounted: false });
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const TOKEN = 'live-pages-token-0123456789abcdef';

/** The page's live region, as attributes (undefined when it has none). */
function liveRegion(html: string): Record<string, string> | undefined {
  const found = /<p\s+id="live"([^>]*)><\/p>/.exec(html);
  if (!found) return undefined;
  return Object.fromEntries(
    [...found[1].matchAll(/([a-z-]+)="([^"]*)"/g)].map(([, name, value]) => [name, value]),
  );
}

const LIVE_SCRIPT = /<script src="\/assets\/live\.[0-9a-f]{12}\.js" defer><\/script>/;

/** A GET through plain supertest, as a browser asks (unless `accept` says otherwise). */
async function get(t: TestApp, path: string, headers: Record<string, string> = {}) {
  return request(t.app.getHttpServer())
    .get(path)
    .set({ Accept: BROWSER, ...headers });
}

async function page(t: TestApp, path: string, headers: Record<string, string> = {}) {
  const res = await get(t, path, headers);
  return { status: res.status, html: res.text };
}

/** The feed's head once every committed event has its position. */
async function head(t: TestApp): Promise<number> {
  const runtime = t.app.get(EventsRuntime);
  await runtime.sequencer.tick();
  return (await runtime.store.bounds()).head;
}

describe('live notice of the browsable pages', () => {
  const t = useApp({ seedEach: { users: USERS, marbles: [AMBER] } });

  it('should give a list page the collection feed and the position its data was read at', async () => {
    const { status, html } = await page(t, '/api/demo/marbles?name=Amber');
    expect(status).toBe(200);
    expect(liveRegion(html)).toEqual({
      class: 'live',
      role: 'status',
      'aria-live': 'polite',
      'data-events': '/api/demo/marbles/events',
      'data-after': String(await head(t)),
      'data-record': '',
    });
    expect(html).toMatch(LIVE_SCRIPT);
    // The script is served under its hashed name, like the page's other assets.
    const url = LIVE_SCRIPT.exec(html)![0].match(/\/assets\/[^"]+/)![0];
    const script = await get(t, url);
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('should give a record page its record, by Accept, suffix or format=html', async () => {
    const byAccept = await page(t, '/api/demo/marbles/7');
    const bySuffix = await get(t, '/api/demo/marbles/7.html', { Accept: 'application/json' });
    const byQuery = await get(t, '/api/demo/marbles/7?format=html', { Accept: '*/*' });
    const position = String(await head(t));
    for (const html of [byAccept.html, bySuffix.text, byQuery.text]) {
      expect(liveRegion(html)).toMatchObject({
        'data-events': '/api/demo/marbles/events',
        'data-after': position,
        'data-record': '7',
      });
    }
    const movies = await page(t, '/api/plain/movies');
    expect(liveRegion(movies.html)?.['data-events']).toBe('/api/plain/movies/events');
  });

  it("should count a write acknowledged before the page was asked for in the page's position", async () => {
    // The sequencer positions events in the background: the page waits for the write's.
    for (let i = 0; i < 3; i++) {
      const written = await t
        .http()
        .patch('/api/demo/marbles/7')
        .send({ radius_mm: 20 + i });
      expect(written.status).toBe(200);
      const { html } = await page(t, '/api/demo/marbles');
      const after = liveRegion(html)?.['data-after'];
      // The feed holds the events of every suite that wrote before: read from the page's position.
      expect(after).toBe(String(await head(t)));
      const since = await t.http().get(`/api/demo/marbles/events?after=${after}`);
      expect(since.body.results).toEqual([]);
    }
  });

  it('should position the events that wait for theirs before it reads the position', async () => {
    // An event written from outside the service (or by an instance that stopped before its
    // round): the lease holder's poll, stopped here, would position it a second later at most.
    const sequencer = t.app.get(EventsRuntime).sequencer;
    const before = await head(t);
    const poll = jest.spyOn(sequencer, 'tick').mockResolvedValue(undefined);
    try {
      await t.insert('record_event_outbox', [
        { collection: 'marbles', action: 'deleted', record_id: 99, at: Date.now() },
      ]);
      const { html } = await page(t, '/api/demo/marbles');
      expect(liveRegion(html)?.['data-after']).toBe(String(before + 1));
    } finally {
      poll.mockRestore();
    }
  });

  it('should give no notice to error pages, the feed page, other pages and non-HTML answers', async () => {
    for (const path of [
      '/api/demo/marbles/999',
      '/api/demo/marbles?price__lt=abc',
      '/api/demo/marbles/7/genres',
      '/api/demo/marbles/events',
      '/api/demo/emails/ping',
      '/',
    ]) {
      const { html } = await page(t, path);
      expect([path, liveRegion(html)]).toEqual([path, undefined]);
      expect(html).not.toMatch(LIVE_SCRIPT);
    }
    const json = await t.request({ path: '/api/demo/marbles/7', accept: 'application/json' });
    expect(json.status).toBe(200);
    expect(json.text).not.toContain('live');
  });
});

describe('live notice with the feed off (EVENTS_ENABLED=false)', () => {
  const t = useApp({
    events: loadConfig({ EVENTS_ENABLED: 'false' }).events,
    seed: { users: USERS, marbles: [AMBER] },
  });

  it('should draw the pages without it', async () => {
    for (const path of ['/api/demo/marbles', '/api/demo/marbles/7']) {
      const { status, html } = await page(t, path);
      expect(status).toBe(200);
      expect(liveRegion(html)).toBeUndefined();
      expect(html).not.toMatch(LIVE_SCRIPT);
    }
  });
});

describe('live notice when reads need a token (AUTH_READS=required)', () => {
  const config = loadConfig({ API_TOKEN: TOKEN, AUTH_READS: 'required' });
  const t = useApp({
    apiToken: config.apiToken,
    auth: config.auth,
    seed: { users: USERS, marbles: [AMBER] },
  });

  it('should draw the pages without it: an EventSource cannot send the token', async () => {
    for (const path of ['/api/demo/marbles', '/api/demo/marbles/7']) {
      const { status, html } = await page(t, path, { Authorization: `Bearer ${TOKEN}` });
      expect(status).toBe(200);
      expect(liveRegion(html)).toBeUndefined();
      expect(html).not.toMatch(LIVE_SCRIPT);
    }
  });
});
