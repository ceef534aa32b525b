/// <reference lib="dom" />
/**
 * The change feed's page and the front door in a real headless browser (Debian's Chromium driven
 * by playwright-core): the feed's page says what makes an event while it has none, then shows
 * the API's writes as they happen, newest first, each row linking to its record (a deleted one
 * named without a link), with no Content-Security-Policy violation and axe-core clean; on a
 * 390 px phone the front door shows each address on one line (two at most), nothing scrolling
 * sideways.
 */
import AxeBuilder from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
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
const TOKEN = 'feed-page-token-0123456789';

describe("the change feed's page and the front door in a browser", () => {
  const t = useApp(demoApp(TOKEN));
  const web = useBrowser(t);

  beforeAll(() => mkdirSync(OUTPUT, { recursive: true }));

  const streams = () => t.app.get(EventsRuntime).hub.size;

  const api = jsonCaller(() => web.base, TOKEN);

  /** The feed's head: the cursor after every event so far. */
  async function head(): Promise<string> {
    const { sequencer, store } = t.app.get(EventsRuntime);
    while ((await store.unpositioned()) !== undefined) await sequencer.sequence();
    return String((await store.bounds()).head);
  }

  it('should say what makes an event, then show the writes as they happen, newest first', async () => {
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 800 } });
    await recordCspViolations(context);
    const page = await context.newPage();
    await page.goto(`${web.base}/api/events?after=${await head()}`, { waitUntil: 'load' });
    await until('the page to open its stream', () => streams() === 1);
    const empty = page.locator('#feed-empty');
    expect(await empty.isVisible()).toBe(true);
    expect((await empty.innerText()).trim()).toBe(
      'No events yet. Every record created, updated or deleted through the API is an event ' +
        '(bulk writes and the marble actions too, one per record), in the order the changes were ' +
        'committed; they appear here as they happen.',
    );
    expect(await page.locator('#feed-rows tr').count()).toBe(0);

    const created = await api('POST', '/api/demo/marbles', { name: 'Live Feed Marble' });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect((await api('PATCH', `/api/demo/marbles/${id}`, { radius_mm: 9 })).status).toBe(200);
    expect((await api('DELETE', `/api/demo/marbles/${id}`)).status).toBe(204);
    await until('three rows', async () => (await page.locator('#feed-rows tr').count()) === 3);
    const rows = await page.evaluate(() =>
      Array.from(document.querySelectorAll('#feed-rows tr')).map((row) => ({
        id: Number(row.getAttribute('data-id')),
        cells: Array.from(row.children).map((cell) => (cell as HTMLElement).innerText.trim()),
        link: row.querySelector('a')?.getAttribute('href') ?? null,
      })),
    );
    // Newest first: the delete, the update, the create.
    expect(rows.map((r) => r.cells.slice(2, 5))).toEqual([
      ['marbles', 'deleted', String(id)],
      ['marbles', 'updated', String(id)],
      ['marbles', 'created', String(id)],
    ]);
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((a, b) => b - a));
    expect(rows.map((r) => r.link)).toEqual([
      null,
      `/api/demo/marbles/${id}`,
      `/api/demo/marbles/${id}`,
    ]);
    expect(rows[0].cells[5]).toBe('api-token');
    expect(await empty.isVisible()).toBe(false);

    // Reloaded on the same cursor: the server draws the same rows, in the same order.
    await page.reload({ waitUntil: 'load' });
    const drawn = await page.evaluate(() =>
      Array.from(document.querySelectorAll('#feed-rows tr')).map((row) =>
        Array.from(row.children).map((cell) => (cell as HTMLElement).innerText.trim()),
      ),
    );
    expect(drawn).toEqual(rows.map((r) => r.cells));
    const axe = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
      .analyze();
    expect(axe.violations.map((v) => v.id)).toEqual([]);
    await page.screenshot({ path: join(OUTPUT, 'feed-page.png') });
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
    await until('the stream to close', () => streams() === 0);
  }, 60_000);

  it('should show each address of the front door on one line at 390 px, two at most', async () => {
    const context = await web.browser.newContext({ viewport: { width: 390, height: 844 } });
    await recordCspViolations(context);
    const page = await context.newPage();
    await page.goto(`${web.base}/api`, { waitUntil: 'load' });
    const links = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLAnchorElement>('.members dd a')).map((a) => {
        const lines = new Set(Array.from(a.getClientRects()).map((r) => Math.round(r.top)));
        return { text: a.innerText, lines: lines.size };
      }),
    );
    expect(links.length).toBeGreaterThanOrEqual(8);
    expect(links.filter((l) => l.lines > 2)).toEqual([]);
    expect(links.filter((l) => l.lines === 1).length).toBeGreaterThanOrEqual(links.length - 1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    await page.screenshot({ path: join(OUTPUT, 'front-door-phone.png'), fullPage: true });
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  }, 60_000);
});
