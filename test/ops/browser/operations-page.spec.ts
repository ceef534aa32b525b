/**
 * The atomic operations' page in Chromium (docs/operations-api.md): `/api/operations` in a
 * browser has a form holding the route's example; sending it runs the operations on the demo
 * data and shows the answer on the page (one result per operation), with no reload and no
 * Content-Security-Policy violation; a failing body shows its status and the operation it names.
 * axe-core finds no WCAG 2.1 AA violation with an answer shown.
 */
import AxeBuilder from '@axe-core/playwright';
import { useApp } from '../../e2e/support/harness';
import { cspViolations, demoApp, recordCspViolations, useBrowser } from './chromium';

describe('the atomic operations page in a browser', () => {
  const t = useApp(demoApp());
  const web = useBrowser(t);

  it('should send the example from the form and show each operation’s result, axe-core clean', async () => {
    const context = await web.browser.newContext();
    await recordCspViolations(context);
    const page = await context.newPage();
    await page.goto(`${web.base}/api/operations`, { waitUntil: 'load' });
    const before = (await t.rows('marbles')).length;
    await page.locator('#send-form button[type=submit]').click();
    const result = page.locator('#send-form .form-result pre');
    await result.waitFor();
    const shown = JSON.parse(await result.innerText()) as { results: { status: number }[] };
    expect(page.url()).toBe(`${web.base}/api/operations`);
    expect(await page.locator('#send-form .form-result').innerText()).toMatch(/^200 OK/);
    expect(shown.results.map((r) => r.status)).toEqual(
      ((await t.http().get('/api/operations')).body.example.operations as { op: string }[]).map(
        (o) => (o.op === 'create' ? 201 : o.op === 'destroy' ? 204 : 200),
      ),
    );
    expect((await t.rows('marbles')).length).toBeGreaterThan(before);

    // A body whose second operation fails: its status and its place, nothing written.
    const count = (await t.rows('marbles')).length;
    await page.locator('#send-body').fill(
      JSON.stringify({
        operations: [
          { op: 'create', collection: 'marbles', record: { name: 'Form Moon' } },
          { op: 'toggle_is_discounted', collection: 'marbles', id: 99999 },
        ],
      }),
    );
    await page.locator('#send-form button[type=submit]').click();
    const bad = page.locator('#send-form .form-result.bad');
    await bad.waitFor();
    expect(await bad.innerText()).toMatch(
      /^404 Operation 2 \(toggle_is_discounted marbles 99999\)/,
    );
    expect((await t.rows('marbles')).length).toBe(count);

    const axe = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
      .analyze();
    expect(axe.violations.map((v) => v.id)).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  }, 120_000);
});
