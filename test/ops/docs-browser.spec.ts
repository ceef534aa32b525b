/**
 * The interactive API documentation in a real headless browser (Debian's Chromium driven by
 * playwright-core): the page loads from this service alone, lists the four collections, and
 * "Try it out" on the marbles index gets a 200.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, Browser } from 'playwright-core';
import { useApp } from '../e2e/harness';
import { marbleRow } from '../e2e/fixtures';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT = join(__dirname, '..', '..', 'test-output', 'api-docs.png');

describe('API documentation page in a browser', () => {
  const t = useApp({
    database: { type: 'sqlite', path: ':memory:' },
    seed: {
      users: [{ id: 1, login: 'ann' }],
      marbles: [
        marbleRow(1, 'Azure Swirl', {
          radius_mm: 7,
          price: '9.50',
          created_at: '2024-05-01 12:00:00.000',
          updated_at: '2024-05-01 12:00:00.000',
          user_id: 1,
        }),
      ],
    },
  });
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`No Chromium at ${CHROMIUM} (apt-get install chromium)`);
    const server = await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('should load from this service only, list the collections and run "Try it out" on the marbles index', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:'))
        foreign.push(request.url());
    });
    await page.goto(`${base}/api/docs/`, { waitUntil: 'networkidle' });

    for (const tag of ['emails', 'marbles', 'phone_numbers', 'movies']) {
      await page.locator(`#operations-tag-${tag}`).waitFor({ timeout: 15_000 });
    }

    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT.replace('.png', '-collections.png'), fullPage: true });

    const operation = page.locator('#operations-marbles-MarblesController_index');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 15_000 });
    expect((await status.innerText()).trim()).toBe('200');
    const body = await operation
      .locator('.live-responses-table tbody .microlight')
      .first()
      .innerText();
    expect(JSON.parse(body)).toMatchObject({
      count: 1,
      page: 1,
      page_size: 30,
      results: [{ id: 1, name: 'Azure Swirl' }],
    });

    await status.scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(foreign).toEqual([]);
  }, 60_000);
});
