/// <reference lib="dom" />
/**
 * The browsable pages put the data first (issue 32), measured in a real headless browser (Debian's
 * Chromium driven by playwright-core) on the demo data, writes needing no token: at least 12 rows
 * of the marbles list above the fold of a 1280x800 window, under the collapsed query form and
 * above the collapsed request and response; timestamps on one line; column headers that order the
 * list (again: descending); after a write from the page the notice is in view where the page
 * came back; a bulk write's invalid items listed one by one; the token field behind a small
 * control; on a 390 px phone nothing but a list's table scrolls sideways, every section open, and
 * a record's page fits (long values wrap, timestamps whole, a text's line breaks shown, axe-core
 * clean at that width); axe-core
 * finds no WCAG 2.1 AA violation with every section open, light and dark; no Content-Security-
 * Policy violation. The list's screenshot is docs/browsable-api.png (test-output/).
 */
import AxeBuilder from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { cspViolations, demoApp, recordCspViolations, useBrowser } from './chromium';
import { useApp } from '../../e2e/support/harness';

const OUTPUT = join(__dirname, '..', '..', '..', 'test-output');
const FOLD = 800;

describe('browsable pages in a browser: the data first', () => {
  const t = useApp(demoApp());
  const web = useBrowser(t);

  beforeAll(() => mkdirSync(OUTPUT, { recursive: true }));

  /** A page in a context of its own that records CSP violations; `done` checks there were none. */
  async function open(
    path: string,
    { width = 1280, height = FOLD, scheme = 'light' as 'light' | 'dark' } = {},
  ) {
    const context = await web.browser.newContext({
      viewport: { width, height },
      colorScheme: scheme,
    });
    await recordCspViolations(context);
    const page = await context.newPage();
    await page.goto(`${web.base}${path}`, { waitUntil: 'load' });
    const seen: string[] = [];
    const collect = async () => {
      seen.push(...(await cspViolations(page)));
    };
    const done = async () => {
      await collect();
      expect(seen).toEqual([]);
      await context.close();
    };
    return { page, collect, done };
  }

  async function api(path: string) {
    const res = await fetch(`${web.base}${path}`, { headers: { Accept: 'application/json' } });
    return (await res.json()) as { results: { id: number; name: string }[] };
  }

  /** The ids of the list's rows, in order. */
  const rowIds = async (page: Page) =>
    (await page.locator('table.records tbody th a').allInnerTexts()).map(Number);

  /** Every <details> of the page opened. */
  const openAll = (page: Page) =>
    page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));

  it('should show at least 12 rows above the fold of a 1280x800 window, the query form above them collapsed, the request and response after them collapsed', async () => {
    const { page, done } = await open('/api/demo/marbles');
    await page.screenshot({ path: join(OUTPUT, 'browsable-api.png') });
    const layout = await page.evaluate(() => {
      const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
      const rows = Array.from(document.querySelectorAll('table.records tbody tr'));
      return {
        rows: rows.length,
        above: rows.filter((row) => row.getBoundingClientRect().bottom <= innerHeight).length,
        query: box('#query > summary').bottom <= box('table.records').top,
        lastRow: rows[rows.length - 1].getBoundingClientRect().bottom,
        exchange: box('#exchange').top,
        open: ['#query', '#exchange'].filter(
          (id) => document.querySelector<HTMLDetailsElement>(id)!.open,
        ),
        height: document.documentElement.scrollHeight,
      };
    });
    console.log(
      `marbles list at 1280x800: ${layout.above} of ${layout.rows} rows above the fold, page ${layout.height} px tall`,
    );
    expect(layout.rows).toBe(30);
    expect(layout.above).toBeGreaterThanOrEqual(12);
    expect(layout.query).toBe(true);
    expect(layout.exchange).toBeGreaterThan(layout.lastRow);
    expect(layout.open).toEqual([]);
    await done();
  }, 60_000);

  it.each([1280, 390])(
    'should keep every timestamp on one line at %i px',
    async (width) => {
      const { page, done } = await open('/api/demo/marbles', { width });
      const cells = await page.evaluate(() => {
        const heads = Array.from(document.querySelectorAll('table.records thead th')).map((th) =>
          th.textContent!.trim(),
        );
        const columns = ['created_at', 'updated_at'].map((name) => heads.indexOf(name) + 1);
        return columns.flatMap((n) =>
          Array.from(document.querySelectorAll(`table.records tbody tr > :nth-child(${n})`)).map(
            (td) => {
              const range = document.createRange();
              range.selectNodeContents(td);
              return {
                text: /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(td.textContent!),
                whiteSpace: getComputedStyle(td).whiteSpace,
                lines: range.getClientRects().length,
              };
            },
          ),
        );
      });
      expect(cells).toHaveLength(60);
      expect(new Set(cells.map((c) => JSON.stringify(c)))).toEqual(
        new Set([JSON.stringify({ text: true, whiteSpace: 'nowrap', lines: 1 })]),
      );
      await done();
    },
    60_000,
  );

  it('should order the list by a column from its header, then descending, keeping the query but its page', async () => {
    const { page, collect, done } = await open(
      '/api/demo/marbles?search=Aggie&page_size=10&page=2',
    );
    const header = page.locator('table.records thead th', { hasText: 'radius_mm' });
    for (const ordering of ['radius_mm', '-radius_mm']) {
      await Promise.all([page.waitForEvent('load'), header.locator('a').click()]);
      await collect();
      const url = new URL(page.url());
      expect([...url.searchParams]).toEqual([
        ['search', 'Aggie'],
        ['page_size', '10'],
        ['ordering', ordering],
      ]);
      expect(await header.getAttribute('aria-sort')).toBe(
        ordering.startsWith('-') ? 'descending' : 'ascending',
      );
      const expected = await api(`/api/demo/marbles${url.search}`);
      expect(await rowIds(page)).toEqual(expected.results.map((r) => r.id));
    }
    await done();
  }, 60_000);

  it('should keep its place after a write from the page, the notice in view', async () => {
    const { page, collect, done } = await open('/api/demo/marbles/2');
    const before = await page.locator('#edit-radius_mm').inputValue();
    await page.locator('#edit-radius_mm').fill(String(Number(before) + 1));
    // The person scrolled down to the form's button, out of sight of the top of the page.
    const button = page.locator('#edit-form button[type=submit]');
    await button.evaluate((element) => element.scrollIntoView({ block: 'end' }));
    expect(await page.evaluate(() => scrollY)).toBeGreaterThan(0);
    const { y } = (await button.boundingBox())!;
    await Promise.all([page.waitForEvent('load'), button.click()]);
    await page.locator('#flash:not(:empty)').waitFor();
    expect(await page.locator('#flash').innerText()).toBe('Saved (200)');
    // The page comes back where it was (the browser restores the place, the notice above it
    // taken into account), and the notice, stuck to the top of the window, is in view.
    await page.waitForFunction(
      (top) =>
        Math.abs(
          document.querySelector('#edit-form button[type=submit]')!.getBoundingClientRect().y - top,
        ) < 1,
      y,
    );
    expect(await page.evaluate(() => scrollY)).toBeGreaterThan(0);
    const notice = (await page.locator('#flash-box').boundingBox())!;
    expect(notice.y).toBeGreaterThanOrEqual(0);
    expect(notice.y + notice.height).toBeLessThanOrEqual(FOLD);
    expect(await page.locator('#edit-radius_mm').inputValue()).toBe(String(Number(before) + 1));
    await collect();
    await page.locator('#flash-close').click();
    expect(await page.locator('#flash-box').isHidden()).toBe(true);
    await done();
  }, 60_000);

  it("should list a bulk write's invalid items one by one, each with its field", async () => {
    const { page, done } = await open('/api/demo/marbles');
    await page
      .locator('#bulk-body')
      .fill('[{"name": "Bulk One"}, {"name": "Bulk Two", "radius_mm": 0, "price": "-1"}]');
    await page.locator('#bulk-form button[type=submit]').click();
    const result = page.locator('#bulk-form .form-result');
    await result.locator('li').first().waitFor();
    expect(await result.innerText()).toMatch(/^422 Some items are invalid; nothing was saved\.\n/);
    expect(await result.locator('li').allInnerTexts()).toEqual([
      'item 2: radius_mm: Must be at least 1.',
      'item 2: price: Must be greater than 0 and at most 9999.99; got -1.0.',
    ]);
    expect(await page.locator('#bulk-body').getAttribute('aria-invalid')).toBe('true');
    expect((await api('/api/demo/marbles?name__in=Bulk%20One,Bulk%20Two')).results).toEqual([]);
    await done();
  }, 60_000);

  it('should put the token field behind a small control when writes need no token', async () => {
    const { page, done } = await open('/api/demo/marbles');
    const header = (await page.locator('header.top').boundingBox())!;
    expect(header.height).toBeLessThanOrEqual(48);
    expect(await page.locator('#api-token').isVisible()).toBe(false);
    await page.locator('#token-box summary').click();
    await page.locator('#api-token').fill('a-token-nobody-asked-for');
    await page.locator('#token-form button[type=submit]').click();
    expect(await page.locator('#token-state').innerText()).toBe('Token set for this tab.');
    await done();
  }, 60_000);

  /** A marble with a long name without spaces and a description of three lines, made here. */
  async function wideMarble(): Promise<{ path: string; description: string }> {
    const description = 'First line of the description.\nSecond line.\nThird line.';
    const res = await fetch(`${web.base}/api/demo/marbles`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({
        name: `https://marbles.example.org/${'long-name-without-spaces-'.repeat(4)}`,
        radius_mm: 4,
        description,
      }),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: number };
    return { path: `/api/demo/marbles/${id}`, description };
  }

  it("should fit a record's page on a 390 px phone: long values wrap, timestamps whole, line breaks shown, axe-core clean", async () => {
    const { path, description } = await wideMarble();
    const { page, done } = await open(path, { width: 390 });
    await openAll(page);
    const fit = await page.evaluate(() => {
      const wrap = document.querySelector('.table-wrap:has(table.record)')!;
      const row = (name: string) =>
        Array.from(document.querySelectorAll('table.record tbody tr'))
          .find((tr) => tr.querySelector('th')!.textContent!.trim() === name)!
          .querySelector('td')!;
      const stamps = ['created_at', 'updated_at'].map((name) => {
        const td = row(name);
        const range = document.createRange();
        range.selectNodeContents(td);
        return {
          lines: range.getClientRects().length,
          inside: range.getBoundingClientRect().right <= wrap.getBoundingClientRect().right,
        };
      });
      const text = row('description');
      return {
        page: document.documentElement.scrollWidth,
        table: wrap.scrollWidth <= wrap.clientWidth,
        stamps,
        whiteSpace: getComputedStyle(text).whiteSpace,
        shown: text.innerText,
      };
    });
    expect(fit).toEqual({
      page: 390,
      table: true,
      stamps: [
        { lines: 1, inside: true },
        { lines: 1, inside: true },
      ],
      whiteSpace: 'pre-line',
      shown: description,
    });
    await page.screenshot({ path: join(OUTPUT, 'browsable-phone-record.png'), fullPage: true });
    const axe = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
      .analyze();
    expect(axe.violations.map((v) => v.id)).toEqual([]);
    // In the list too, the description's line breaks are shown.
    await page.goto(`${web.base}/api/demo/marbles?search=Second%20line`, { waitUntil: 'load' });
    const listed = await page.evaluate(() => {
      const heads = Array.from(document.querySelectorAll('table.records thead th')).map((th) =>
        th.textContent!.trim(),
      );
      const n = heads.indexOf('description') + 1;
      const td = document.querySelector<HTMLElement>(`table.records tbody tr > :nth-child(${n})`)!;
      return { whiteSpace: getComputedStyle(td).whiteSpace, shown: td.innerText };
    });
    expect(listed).toEqual({ whiteSpace: 'pre-line', shown: description });
    await done();
  }, 60_000);

  const PAGES = [
    '/api/demo/marbles',
    '/api/demo/marbles/1',
    '/api/plain/movies',
    '/api/demo/marbles/99999',
    '/api/demo/marbles?radius_mm=abc',
    '/api',
    '/api/events',
  ];

  it('should scroll nothing sideways but a table on a 390 px phone, every section open', async () => {
    const { page, collect, done } = await open(PAGES[0], { width: 390 });
    const widths: Record<string, number> = {};
    for (const path of PAGES) {
      await page.goto(`${web.base}${path}`, { waitUntil: 'load' });
      await collect();
      await openAll(page);
      widths[path] = await page.evaluate(() => document.documentElement.scrollWidth);
    }
    expect(widths).toEqual(Object.fromEntries(PAGES.map((path) => [path, 390])));
    await page.goto(`${web.base}/api/demo/marbles`, { waitUntil: 'load' });
    const table = await page
      .locator('.table-wrap:has(table.records)')
      .evaluate((wrap) => ({ scroll: wrap.scrollWidth, client: wrap.clientWidth }));
    expect(table.scroll).toBeGreaterThan(table.client);
    await openAll(page);
    await page.screenshot({ path: join(OUTPUT, 'browsable-phone-open.png'), fullPage: true });
    await done();
  }, 60_000);

  it.each(['light', 'dark'] as const)(
    'should pass axe-core (WCAG 2.1 AA) with every section open in %s',
    async (scheme) => {
      const { page, collect, done } = await open(PAGES[0], { scheme });
      const found: Record<string, string[]> = {};
      for (const path of PAGES) {
        await page.goto(`${web.base}${path}`, { waitUntil: 'load' });
        await collect();
        await openAll(page);
        const result = await new AxeBuilder({ page })
          .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
          .analyze();
        found[path] = result.violations.map(
          (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
        );
      }
      expect(found).toEqual(Object.fromEntries(PAGES.map((path) => [path, []])));
      await done();
    },
    120_000,
  );
});
