/// <reference lib="dom" />
/**
 * The browsable pages' live notice in a real headless browser (Debian's Chromium driven by
 * playwright-core; docs/events.md, "On the browsable pages"): a page open while the API writes
 * shows, in its polite live region, that its list or record changed, with a reload link; a record
 * page ignores its collection's other records; the page's own write does not announce itself;
 * the stream is closed once the notice shows and while the tab is hidden, and resumes from where
 * it was when the tab shows again. axe-core finds no WCAG 2.1 AA violation with the notice shown,
 * in light and dark, and no Content-Security-Policy violation occurs.
 */
import AxeBuilder from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { EventsRuntime } from '../../../src/events/events.module';
import {
  cspViolations,
  demoApp,
  jsonCaller,
  recordCspViolations,
  until,
  useBrowser,
} from './chromium';
import { useApp } from '../../e2e/support/harness';

const OUTPUT = join(__dirname, '..', '..', '..', 'test-output');
const TOKEN = 'browsable-live-token-0123456789';

describe('live notice of the browsable pages in a browser', () => {
  const t = useApp(demoApp(TOKEN));
  const web = useBrowser(t);

  beforeAll(() => mkdirSync(OUTPUT, { recursive: true }));

  /** The number of feed streams open on the app. */
  const streams = () => t.app.get(EventsRuntime).hub.size;

  /** A page in a context that records CSP violations, opened at `path` with its stream open. */
  async function open(path: string, scheme: 'light' | 'dark' = 'light') {
    const context = await web.browser.newContext({ colorScheme: scheme });
    await recordCspViolations(context);
    const page = await context.newPage();
    await page.goto(`${web.base}${path}`, { waitUntil: 'load' });
    await until('the page to open its stream', () => streams() === 1);
    const done = async () => {
      expect(await cspViolations(page)).toEqual([]);
      await context.close();
      await until('the stream to close', () => streams() === 0);
    };
    return { context, page, done };
  }

  const api = jsonCaller(() => web.base, TOKEN);

  /** The notice's text and link once it shows. */
  async function notice(page: Page) {
    await page.locator('#live:not(:empty)').waitFor();
    const link = page.locator('#live a');
    return {
      text: (await page.locator('#live').innerText()).trim(),
      link: await link.innerText(),
      href: await link.evaluate((a) => (a as HTMLAnchorElement).href),
    };
  }

  async function axe(page: Page): Promise<string[]> {
    const result = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
      .analyze();
    return result.violations.map(
      (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  }

  it.each(['light', 'dark'] as const)(
    'should tell a list page that its collection changed, with a reload link, accessibly (%s)',
    async (scheme) => {
      const { page, done } = await open('/api/demo/marbles?ordering=-id', scheme);
      expect(await page.locator('#live').innerText()).toBe('');
      expect(await page.locator('#live').getAttribute('aria-live')).toBe('polite');
      const written = await api('PATCH', '/api/demo/marbles/3', { radius_mm: 11 });
      expect(written.status).toBe(200);
      expect(await notice(page)).toEqual({
        text: 'This list has changed since the page was loaded (record 3 updated). Reload',
        link: 'Reload',
        href: `${web.base}/api/demo/marbles?ordering=-id`,
      });
      // The page is stale now: its stream is closed.
      await until('the stream to close', () => streams() === 0);
      await page.screenshot({ path: join(OUTPUT, `browsable-live-${scheme}.png`) });
      expect(await axe(page)).toEqual([]);
      await Promise.all([page.waitForEvent('load'), page.locator('#live a').click()]);
      expect(await page.locator('#live').innerText()).toBe('');
      await done();
    },
  );

  it("should tell a record page about its own record only, and send it to the list when it's deleted", async () => {
    const created = await api('POST', '/api/demo/marbles', { name: 'Live Glass', radius_mm: 5 });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const { page, done } = await open(`/api/demo/marbles/${id}`);
    expect(await page.locator('#live').getAttribute('data-record')).toBe(String(id));
    // Another marble changes first: its event reaches the page and is passed over.
    expect((await api('PATCH', '/api/demo/marbles/2', { radius_mm: 12 })).status).toBe(200);
    expect((await api('DELETE', `/api/demo/marbles/${id}`)).status).toBe(204);
    expect(await notice(page)).toEqual({
      text: 'This record has been deleted since the page was loaded. Open the list',
      link: 'Open the list',
      href: `${web.base}/api/demo/marbles`,
    });
    expect(await axe(page)).toEqual([]);
    await done();
  });

  it("should not announce the page's own write, and announce the next one", async () => {
    const { page, done } = await open('/api/demo/marbles');
    await page.locator('#api-token').fill(TOKEN);
    await page.locator('#token-form button[type=submit]').click();
    await page.locator('#create-name').fill('Own Glass');
    await page.locator('#create-radius_mm').fill('6');
    await Promise.all([
      page.waitForURL(/\/api\/demo\/marbles\/\d+$/),
      page.locator('#create-form button[type=submit]').click(),
    ]);
    const id = Number(/(\d+)$/.exec(page.url())![1]);
    await until('the record page to open its stream', () => streams() === 1);
    // The page was drawn after its create had a position: the stream starts after it.
    const events = await api('GET', `/api/demo/marbles/events?after=0&limit=1000`);
    const own = (events.body.results as { id: string; record_id: number }[]).filter(
      (e) => e.record_id === id,
    );
    expect(own).toHaveLength(1);
    expect(await page.locator('#live').getAttribute('data-after')).toBe(own[0].id);
    expect(await page.locator('#live').innerText()).toBe('');
    expect((await api('PATCH', `/api/demo/marbles/${id}`, { radius_mm: 8 })).status).toBe(200);
    expect(await notice(page)).toEqual({
      text: 'This record has changed since the page was loaded. Reload',
      link: 'Reload',
      href: `${web.base}/api/demo/marbles/${id}`,
    });
    await done();
  });

  it('should close the stream while the tab is hidden and catch up when it shows again', async () => {
    const { page, done } = await open('/api/demo/marbles');
    const show = (state: 'hidden' | 'visible') =>
      page.evaluate((s) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
        document.dispatchEvent(new Event('visibilitychange'));
      }, state);
    await show('hidden');
    await until('the hidden page to close its stream', () => streams() === 0);
    expect((await api('PATCH', '/api/demo/marbles/4', { radius_mm: 13 })).status).toBe(200);
    await t.app.get(EventsRuntime).sequencer.tick();
    expect(await page.locator('#live').innerText()).toBe('');
    await show('visible');
    expect((await notice(page)).text).toBe(
      'This list has changed since the page was loaded (record 4 updated). Reload',
    );
    await done();
  });
});
