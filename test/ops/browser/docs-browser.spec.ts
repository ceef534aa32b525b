/**
 * The interactive API documentation in a real headless browser (Debian's Chromium driven by
 * playwright-core): the page loads from this service alone, lists the collections in the order of
 * `COLLECTIONS` (emails, phone numbers, marbles, movies, and the fixtures under EXTRA_COLLECTIONS),
 * Authorize takes the write token, and "Try it out" with the page's default example succeeds on
 * every operation against the demo data, every standard route of every collection among them.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { demoApp, useBrowser } from './chromium';
import { useApp } from '../../e2e/support/harness';
import { standardRoutes } from '../../e2e/support/routes';
import { COLLECTIONS, COLLECTION_NAMES } from '../../sources';

export const SCREENSHOT = join(__dirname, '..', '..', '..', 'test-output', 'api-docs.png');

describe('API documentation page in a browser', () => {
  const TOKEN = 'browser-test-token-0123456789';
  const t = useApp(demoApp(TOKEN));
  const web = useBrowser(t);

  it('should load from this service only, list the collections in order and run "Try it out" on every operation', async () => {
    const page = await web.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(web.base) && !request.url().startsWith('data:'))
        foreign.push(request.url());
    });
    await page.goto(`${web.base}/api/docs/`, { waitUntil: 'networkidle' });

    for (const tag of [...COLLECTION_NAMES, 'events', 'operations', 'webhooks', 'health']) {
      await page.locator(`#operations-tag-${tag}`).waitFor({ timeout: 15_000 });
    }
    const tags = await page
      .locator('.opblock-tag-section h3 a span, .opblock-tag-section h3 span')
      .allInnerTexts();
    // The collections, then the change feed's, atomic operations', the webhooks' and the health routes' tags.
    expect(tags.filter((x) => /^[a-z_]+$/.test(x))).toEqual([
      ...COLLECTION_NAMES,
      'events',
      'operations',
      'webhooks',
      'health',
    ]);

    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT.replace('.png', '-collections.png'), fullPage: true });

    // Authorize: the bearer token, sent by every write from now on.
    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.auth-container input').fill(TOKEN);
    await page.locator('.auth-btn-wrapper .authorize').click();
    await page.screenshot({ path: SCREENSHOT.replace('.png', '-authorize.png') });
    await page.locator('.auth-btn-wrapper .btn-done').click();

    const doc = (await (await fetch(`${web.base}/api/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { operationId: string; tags: string[]; responses: object }>
      >;
    };
    const outcomes: [string, string][] = [];
    const expected: [string, string][] = [];
    // In the document's order, DELETEs last: a webhook subscription one deletes is what the
    // routes after it in the document act on.
    const operations = Object.entries(doc.paths)
      .flatMap(([, item]) => Object.entries(item).map(([method, op]) => ({ method, op })))
      .sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
    {
      for (const { op } of operations) {
        expected.push([op.operationId, Object.keys(op.responses)[0]]);
        const operation = page.locator(`#operations-${op.tags[0]}-${op.operationId}`);
        await operation.locator('.opblock-summary').first().click();
        await operation.getByRole('button', { name: 'Try it out' }).click();
        await operation.getByRole('button', { name: 'Execute' }).click();
        const status = operation
          .locator('.live-responses-table tbody .response-col_status')
          .first();
        await status.waitFor({ timeout: 15_000 });
        outcomes.push([op.operationId, (await status.innerText()).trim().slice(0, 3)]);
        if (op.operationId === 'adjustMarblePrice') {
          await status.scrollIntoViewIfNeeded();
          await page.screenshot({ path: SCREENSHOT.replace('.png', '-adjust-price.png') });
        }
        if (op.operationId === 'listMarbles') {
          const body = await operation
            .locator('.live-responses-table tbody .microlight')
            .first()
            .innerText();
          expect(JSON.parse(body)).toMatchObject({ count: 120, page: 1, page_size: 30 });
          await status.scrollIntoViewIfNeeded();
          await page.screenshot({ path: SCREENSHOT, fullPage: false });
        }
        // Collapsed again, so the page stays short.
        await operation.locator('.opblock-summary').first().click();
      }
    }
    expect(outcomes).toEqual(expected);
    // Every standard route of every collection, and the front door's two (GET / and GET /api).
    const tried = outcomes.map(([operationId]) => operationId);
    for (const route of [
      ...COLLECTIONS.flatMap(standardRoutes),
      '- - frontDoor',
      '- - apiFrontDoor',
    ]) {
      expect(tried).toContain(route.split(' ')[2]);
    }
    expect(foreign).toEqual([]);
  }, 600_000);
});
