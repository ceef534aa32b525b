/// <reference lib="dom" />
/**
 * The browsable API in a real headless browser (Debian's Chromium driven by playwright-core):
 * writes from the page's forms (create, edit with If-Match and the 412 reload, delete with a
 * confirmation, bulk, both marble actions) with the token flow; filters, ordering, search and
 * field selection kept across pages; every write request carries a UUID Idempotency-Key (and
 * If-Match on a record); no Content-Security-Policy violation anywhere; axe-core finds no WCAG
 * 2.1 AA violation on the list, record, empty-list and error pages in light and dark.
 * Screenshots of each page go to test-output/.
 */
import AxeBuilder from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BrowserContext, Page } from 'playwright-core';
import { cspViolations, demoApp, recordCspViolations, useBrowser } from './chromium';
import { useApp } from '../../e2e/support/harness';

const OUTPUT = join(__dirname, '..', '..', '..', 'test-output');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TOKEN = 'browsable-test-token-0123456789';

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

describe('browsable API in a browser', () => {
  const t = useApp(demoApp(TOKEN));
  const web = useBrowser(t);

  beforeAll(() => mkdirSync(OUTPUT, { recursive: true }));

  /** A context whose pages record CSP violations, and the writes they send. */
  async function open(scheme: 'light' | 'dark' = 'light', width = 1280) {
    const context = await web.browser.newContext({
      colorScheme: scheme,
      viewport: { width, height: 900 },
    });
    await recordCspViolations(context);
    const page = await context.newPage();
    const sent: Sent[] = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' || request.method() === 'HEAD') return;
      sent.push({
        method: request.method(),
        url: request.url(),
        headers: request.headers(),
        body: request.postData(),
      });
    });
    const violations: string[] = [];
    const collect = async () => {
      violations.push(...(await cspViolations(page)));
    };
    return { context, page, sent, violations, collect };
  }

  /** Navigates and collects the CSP violations of the page left behind. */
  async function visit(page: Page, collect: () => Promise<void>, path: string) {
    await page.goto(`${web.base}${path}`, { waitUntil: 'load' });
    await collect();
  }

  async function api(method: string, path: string, body?: unknown, headers = {}) {
    const res = await fetch(`${web.base}${path}`, {
      method,
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/json',
        Authorization: `Bearer ${TOKEN}`,
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, etag: res.headers.get('etag'), text: await res.text() };
  }

  async function flash(page: Page): Promise<string> {
    await page.locator('#flash:not(:empty)').waitFor();
    return (await page.locator('#flash').innerText()).trim();
  }

  async function noCspViolations(context: BrowserContext, page: Page, violations: string[]) {
    violations.push(...(await cspViolations(page)));
    expect(violations).toEqual([]);
    await context.close();
  }

  it('should create a marble after the token flow, edit it with If-Match (412 then reload), run both actions and delete it', async () => {
    const { context, page, sent, violations, collect } = await open();
    await visit(page, collect, '/api/demo/marbles');
    await page.screenshot({ path: join(OUTPUT, 'browsable-list.png'), fullPage: false });

    // A 400 is shown beside its field: the name is required.
    await page.locator('#create-radius_mm').fill('7');
    await page.locator('#create-form button[type=submit]').click();
    // Without a token: 401, and the token field takes the focus.
    await page.locator('#create-form .form-result:not(:empty)').waitFor();
    expect(await page.locator('#create-form .form-result').innerText()).toMatch(/^401 /);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('api-token');
    await page.locator('#api-token').fill(TOKEN);
    await page.locator('#token-form button[type=submit]').click();

    await page.locator('#create-form button[type=submit]').click();
    await page.locator('#create-name-error:not(:empty)').waitFor();
    expect(await page.locator('#create-name-error').innerText()).toMatch(/required|blank/i);
    expect(await page.locator('#create-form .form-result').innerText()).toMatch(/^400 /);
    expect(await page.locator('#create-name').getAttribute('aria-invalid')).toBe('true');

    await page.locator('#create-name').fill('Browser Glass');
    await page.locator('#create-price').fill('3.5');
    await page.locator('#create-is_discounted').check();
    await Promise.all([
      page.waitForURL(/\/api\/demo\/marbles\/\d+$/),
      page.locator('#create-form button[type=submit]').click(),
    ]);
    expect(await flash(page)).toBe('Created (201).');
    const id = Number(/(\d+)$/.exec(page.url())![1]);
    await collect();
    const created = JSON.parse((await api('GET', `/api/demo/marbles/${id}`)).text);
    expect(created).toMatchObject({
      name: 'Browser Glass',
      radius_mm: 7,
      price: '3.5',
      is_discounted: true,
    });
    const creates = sent.filter((s) => s.method === 'POST');
    expect(creates).toHaveLength(3);
    for (const s of creates) {
      expect(s.headers['idempotency-key']).toMatch(UUID);
      expect(s.headers['accept']).toBe('application/json');
    }
    // The 401 attempt and the same body sent again share the key; the changed body has a new one.
    expect(creates[1].headers['idempotency-key']).toBe(creates[0].headers['idempotency-key']);
    expect(creates[2].headers['idempotency-key']).not.toBe(creates[1].headers['idempotency-key']);
    expect(creates[0].headers['authorization']).toBeUndefined();
    expect(creates[2].headers['authorization']).toBe(`Bearer ${TOKEN}`);

    // The token is in this tab's session storage only: not in the page, a URL or a cookie.
    expect(await page.content()).not.toContain(TOKEN);
    expect(page.url()).not.toContain(TOKEN);
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.getItem('records-api-token'))).toBe(TOKEN);
    const source = await (await fetch(page.url(), { headers: { Accept: 'text/html' } })).text();
    expect(source).not.toContain(TOKEN);
    await page.screenshot({ path: join(OUTPUT, 'browsable-record.png'), fullPage: true });

    // Edit: the form sends If-Match with the ETag the page shows. Meanwhile, a change elsewhere.
    const etag = (await api('GET', `/api/demo/marbles/${id}`)).etag!;
    expect(await page.locator('#edit-form').getAttribute('data-etag')).toBe(etag);
    await page.locator('#edit-radius_mm').fill('9');
    const elsewhere = await api('PATCH', `/api/demo/marbles/${id}`, {
      description: 'changed elsewhere',
    });
    expect(elsewhere.status).toBe(200);
    await page.locator('#edit-form button[type=submit]').click();
    await page.locator('#edit-form .form-result:not(:empty)').waitFor();
    expect(await page.locator('#edit-form .form-result').innerText()).toMatch(/^412 /);
    const reload = page.getByRole('button', { name: 'Reload the record' });
    expect(await reload.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.screenshot({ path: join(OUTPUT, 'browsable-412.png'), fullPage: false });
    const patches = sent.filter((s) => s.method === 'PATCH');
    expect(patches).toHaveLength(1);
    expect(patches[0].headers['if-match']).toBe(etag);
    expect(patches[0].headers['idempotency-key']).toMatch(UUID);
    // Only the changed field is sent: nothing else of the record is overwritten.
    expect(JSON.parse(patches[0].body!)).toEqual({ radius_mm: 9 });
    await collect();
    await Promise.all([page.waitForEvent('load'), reload.click()]);
    expect(await page.locator('#edit-description').inputValue()).toBe('changed elsewhere');
    await page.locator('#edit-radius_mm').fill('9');
    await Promise.all([
      page.waitForEvent('load'),
      page.locator('#edit-form button[type=submit]').click(),
    ]);
    expect(await flash(page)).toMatch(/\(200\)$/);
    expect(await page.locator('#edit-radius_mm').inputValue()).toBe('9');
    expect(sent.filter((s) => s.method === 'PATCH')[1].headers['if-match']).toBe(elsewhere.etag);
    await collect();

    // The marble actions.
    await page.locator('#action-adjust_price-price').fill('12.5');
    await Promise.all([
      page.waitForEvent('load'),
      page.locator('#action-adjust_price button[type=submit]').click(),
    ]);
    expect(await flash(page)).toBe('Price updated to 12.5. (200)');
    await collect();
    await Promise.all([
      page.waitForEvent('load'),
      page.locator('#action-toggle_is_discounted button[type=submit]').click(),
    ]);
    expect(await flash(page)).toBe('Is discounted toggled to false. (200)');
    await collect();
    const actions = sent.filter((s) => /adjust_price|toggle_is_discounted/.test(s.url));
    expect(actions.map((s) => [s.method, new URL(s.url).pathname])).toEqual([
      ['PATCH', `/api/demo/marbles/${id}/adjust_price`],
      ['PATCH', `/api/demo/marbles/${id}/toggle_is_discounted`],
    ]);
    for (const s of actions) {
      expect(s.headers['if-match']).toMatch(/^".+"$/);
      expect(s.headers['idempotency-key']).toMatch(UUID);
    }
    expect(JSON.parse(actions[0].body!)).toEqual({ price: '12.5' });
    expect(JSON.parse((await api('GET', `/api/demo/marbles/${id}`)).text)).toMatchObject({
      price: '12.5',
      is_discounted: false,
      radius_mm: 9,
    });

    // Delete: nothing happens when the confirmation is dismissed; accepted, the record goes.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.locator('#delete-form button[type=submit]').click();
    expect(sent.filter((s) => s.method === 'DELETE')).toHaveLength(0);
    page.once('dialog', (dialog) => void dialog.accept());
    await Promise.all([
      page.waitForURL(`${web.base}/api/demo/marbles`),
      page.locator('#delete-form button[type=submit]').click(),
    ]);
    expect(await flash(page)).toBe('Deleted (204).');
    const deletes = sent.filter((s) => s.method === 'DELETE');
    expect(deletes).toHaveLength(1);
    expect(deletes[0].headers['if-match']).toMatch(/^".+"$/);
    expect((await api('GET', `/api/demo/marbles/${id}`)).status).toBe(404);
    await noCspViolations(context, page, violations);
  }, 180_000);

  it('should send bulk writes as raw JSON and XML', async () => {
    const { context, page, sent, violations, collect } = await open();
    await visit(page, collect, '/api/demo/phone_numbers');
    await page.evaluate((token) => sessionStorage.setItem('records-api-token', token), TOKEN);
    await page
      .locator('#bulk-body')
      .fill('[{"number": "+1 555 0901", "user_id": 1}, {"number": "+1 555 0902", "user_id": 2}]');
    await Promise.all([
      page.waitForEvent('load'),
      page.locator('#bulk-form button[type=submit]').click(),
    ]);
    expect(await flash(page)).toBe('Bulk create successful. (201)');
    const created = JSON.parse(
      (await api('GET', '/api/demo/phone_numbers?number__in=%2B1%20555%200901,%2B1%20555%200902'))
        .text,
    ).results as { id: number }[];
    expect(created).toHaveLength(2);
    await collect();
    await page.locator('#bulk-method').selectOption('DELETE');
    await page.locator('#bulk-type').selectOption('application/xml');
    await page
      .locator('#bulk-body')
      .fill(
        `<ids type="array">${created.map((r) => `<id type="integer">${r.id}</id>`).join('')}</ids>`,
      );
    await Promise.all([
      page.waitForEvent('load'),
      page.locator('#bulk-form button[type=submit]').click(),
    ]);
    expect(await flash(page)).toBe('Bulk destroy successful. (200)');
    const bulk = sent.filter((s) => s.url === `${web.base}/api/demo/phone_numbers`);
    expect(bulk.map((s) => [s.method, s.headers['content-type']])).toEqual([
      ['POST', 'application/json'],
      ['DELETE', 'application/xml'],
    ]);
    for (const s of bulk) expect(s.headers['idempotency-key']).toMatch(UUID);
    for (const r of created)
      expect((await api('GET', `/api/demo/phone_numbers/${r.id}`)).status).toBe(404);
    await noCspViolations(context, page, violations);
  }, 120_000);

  it('should keep filters, ordering, search and field selection across pages', async () => {
    const { context, page, violations, collect } = await open('light', 390);
    await visit(page, collect, '/api/demo/marbles');
    // The form is collapsed above the table.
    await page.locator('#query > summary').click();
    await page.locator('#q-search').fill('a');
    await page.locator('#q-ordering').selectOption('-radius_mm');
    await page.locator('#q-only').fill('id,name,radius_mm');
    await page.locator('#q-page-size').fill('5');
    await page.locator('summary', { hasText: 'Filters' }).click();
    await page.locator('#f-radius_mm__gte').fill('5');
    await Promise.all([
      page.waitForEvent('load'),
      page.locator('#query-form button[type=submit]').click(),
    ]);
    const first = new URL(page.url());
    // Only the parameters that have a value.
    expect([...first.searchParams.entries()]).toEqual([
      ['search', 'a'],
      ['ordering', '-radius_mm'],
      ['only', 'id,name,radius_mm'],
      ['page_size', '5'],
      ['radius_mm__gte', '5'],
    ]);
    const expected = JSON.parse(
      (await api('GET', `/api/demo/marbles${first.search}&page=2`)).text,
    ) as {
      results: { id: number }[];
    };
    expect(expected.results.length).toBeGreaterThan(0);
    await Promise.all([page.waitForEvent('load'), page.locator('.pages a[rel=next]').click()]);
    const second = new URL(page.url());
    expect([...second.searchParams.entries()]).toEqual([
      ...first.searchParams.entries(),
      ['page', '2'],
    ]);
    const ids = await page.locator('table:not(.filters):not(.record) tbody th a').allInnerTexts();
    expect(ids.map(Number)).toEqual(expected.results.map((r) => r.id));
    expect(await page.locator('table:not(.filters) thead th').allInnerTexts()).toEqual([
      'id',
      'name',
      'radius_mm',
    ]);
    await page.locator('#query > summary').click();
    expect(await page.locator('#q-search').inputValue()).toBe('a');
    expect(await page.locator('#f-radius_mm__gte').inputValue()).toBe('5');
    expect(await page.locator('#q-ordering').inputValue()).toBe('-radius_mm');
    await page.screenshot({ path: join(OUTPUT, 'browsable-phone.png'), fullPage: false });
    // The numbered links, and the previous page.
    await Promise.all([page.waitForEvent('load'), page.locator('.pages a[rel=prev]').click()]);
    expect(new URL(page.url()).searchParams.get('page')).toBe('1');
    await collect();
    await noCspViolations(context, page, violations);
  }, 120_000);

  const PAGES: [string, string][] = [
    ['list', '/api/demo/marbles'],
    ['record', '/api/demo/marbles/1'],
    ['empty-list', '/api/demo/marbles?search=no-such-marble-anywhere'],
    ['error', '/api/demo/marbles/99999'],
    ['bad-filter', '/api/demo/marbles?radius_mm=abc'],
  ];

  it.each(['light', 'dark'] as const)(
    'should pass axe-core (WCAG 2.1 AA) on the list, record, empty-list and error pages in %s',
    async (scheme) => {
      const { context, page, violations, collect } = await open(scheme);
      const found: Record<string, string[]> = {};
      for (const [name, path] of PAGES) {
        await visit(page, collect, path);
        const result = await new AxeBuilder({ page })
          .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
          .analyze();
        found[name] = result.violations.map(
          (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
        );
        await page.screenshot({
          path: join(OUTPUT, `browsable-${name}-${scheme}.png`),
          fullPage: false,
        });
      }
      expect(found).toEqual(Object.fromEntries(PAGES.map(([name]) => [name, []])));
      await noCspViolations(context, page, violations);
    },
    120_000,
  );

  it('should be usable from the keyboard: skip link, then the token field', async () => {
    const { context, page, violations, collect } = await open();
    await visit(page, collect, '/api/demo/marbles/1');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
      'Skip to the content',
    );
    await page.keyboard.press('Enter');
    // The fragment navigation lands after the key press returns: wait for it, not for a moment.
    await page.waitForFunction(() => location.hash === '#main', undefined, { timeout: 10_000 });
    expect(new URL(page.url()).hash).toBe('#main');
    // The OPTIONS metadata from the keyboard.
    await page.locator('#options-button').focus();
    await page.keyboard.press('Enter');
    await page.locator('#options-output:not([hidden])').waitFor();
    expect(await page.locator('#options-output').innerText()).toMatch(
      /^OPTIONS → 200\nAllow: GET, HEAD, POST/,
    );
    await noCspViolations(context, page, violations);
  }, 60_000);
});
