/// <reference lib="dom" />
/**
 * A JWT from a real OpenID Connect provider (test/oidc, client credentials grant) in a real
 * browser, both places a person pastes one: Swagger UI's Authorize dialog, whose bearer scheme
 * says JWT and which lists the issuer's openIdConnect scheme beside it, and the browsable page's
 * token field, which keeps it in the tab's session storage only. A write "tried out" with a
 * `marbles:write` token is created; without a token it is refused, with the scope named.
 */
import { AUDIENCE } from '../../oidc/provider';
import { useKeysReady, useProvider } from '../../e2e/auth/oidc';
import { useApp } from '../../e2e/support/harness';
import { useBrowser } from './chromium';

describe('a JWT in the browser: Swagger UI Authorize and the browsable token field', () => {
  const oidc = useProvider();
  const t = useApp(() => ({
    database: { type: 'sqlite', path: ':memory:' },
    auth: { issuer: oidc.provider.issuer, audience: [AUDIENCE], readsRequired: false },
    seed: async (app) => app.demoData.load(),
  }));
  useKeysReady(t);
  const web = useBrowser(t);

  const marbleNames = async () => (await t.rows('marbles')).map((r) => r.name as string);

  it('should take a JWT in Authorize and create a marble with "Try it out"', async () => {
    const token = await oidc.provider.token('marbles-bot', ['marbles:write']);
    const page = await web.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${web.base}/api/docs/`, { waitUntil: 'networkidle' });
    const create = page.locator('#operations-marbles-createMarble');
    await create.waitFor({ timeout: 15_000 });

    // Before Authorize: 401, and nothing written.
    const before = await marbleNames();
    await create.locator('.opblock-summary').first().click();
    await create.getByRole('button', { name: 'Try it out' }).click();
    await create.getByRole('button', { name: 'Execute' }).click();
    const status = create.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 15_000 });
    expect((await status.innerText()).trim().slice(0, 3)).toBe('401');
    expect(await marbleNames()).toEqual(before);

    await page.locator('.auth-wrapper .authorize').click();
    const dialog = page.locator('.auth-container');
    // Both schemes of the document: the bearer JWT and the issuer's OpenID Connect discovery.
    await dialog.first().waitFor();
    const schemes = (await dialog.allInnerTexts()).join('\n');
    expect(schemes).toMatch(/bearer\s+\(http, Bearer\)/);
    expect(schemes).toContain(
      `Authorization: Bearer <token>, where the token is a JWT of ${oidc.provider.issuer}`,
    );
    expect(schemes).toContain('<collection>:write');
    expect(schemes).toContain(
      `OpenID Connect URL: ${oidc.provider.issuer}/.well-known/openid-configuration`,
    );
    const bearerScheme = dialog.filter({ hasText: /bearer\s+\(http, Bearer\)/ });
    await bearerScheme.locator('input').fill(token);
    await bearerScheme.locator('button.authorize').click();
    await page.getByRole('button', { name: 'Close' }).first().click();

    await create.getByRole('button', { name: 'Execute' }).click();
    await page.waitForFunction(
      () =>
        document
          .querySelector(
            '#operations-marbles-createMarble .live-responses-table tbody .response-col_status',
          )
          ?.textContent?.trim()
          .startsWith('201') ?? false,
      undefined,
      { timeout: 15_000 },
    );
    expect((await marbleNames()).length).toBe(before.length + 1);
    await page.close();
  }, 120_000);

  it('should take a JWT in the browsable page token field and keep it in the tab only', async () => {
    const token = await oidc.provider.token('marbles-bot', ['marbles:write']);
    const context = await web.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${web.base}/api/demo/marbles`);
    await page.locator('#api-token').fill(token);
    await page.locator('#token-form button[type=submit]').click();
    await page.locator('#create-name').fill('Glass From A JWT');
    await Promise.all([
      page.waitForURL(/\/api\/demo\/marbles\/\d+$/),
      page.locator('#create-form button[type=submit]').click(),
    ]);
    expect(await marbleNames()).toContain('Glass From A JWT');
    expect(await page.evaluate(() => sessionStorage.getItem('records-api-token'))).toBe(token);
    expect(await context.cookies()).toEqual([]);
    expect(page.url()).not.toContain(token);
    await context.close();
  }, 120_000);
});
