/**
 * The webhooks' pages in Chromium (docs/webhooks.md): the subscriptions' list, one subscription
 * and its deliveries, drawn with a subscription that has delivered an event to a receiver of the
 * suite's own; axe-core finds no WCAG 2.1 AA violation on any of them in the light and the dark
 * scheme, and no page breaks the Content-Security-Policy. `WEBHOOK_ALLOW_PRIVATE` (a loopback
 * receiver) opens the routes without a token, which is how a browser reaches them here.
 */
import AxeBuilder from '@axe-core/playwright';
import { Receiver } from '../../e2e/webhooks/receiver';
import { useApp } from '../../e2e/support/harness';
import { cspViolations, demoApp, recordCspViolations, useBrowser } from './chromium';

describe('the webhooks pages in a browser', () => {
  const t = useApp({
    ...demoApp(),
    webhooks: {
      timeoutMs: 2000,
      retryScheduleMs: [60_000],
      secretGraceMs: 60_000,
      allowPrivate: true,
      deliver: true,
      timing: { leaseMs: 3000, tickMs: 100, saveEveryMs: 50, pollMs: 20 },
    },
  });
  const web = useBrowser(t);
  let receiver: Receiver;
  let id: number;

  beforeAll(async () => {
    receiver = await Receiver.start();
    const created = await t
      .http()
      .post('/api/webhooks')
      .send({ url: receiver.url('/pages'), collections: ['marbles'], description: 'Pages' });
    expect(created.status).toBe(201);
    id = created.body.id as number;
    const written = await t.http().post('/api/demo/marbles').send({ name: 'Paged Moon' });
    expect(written.status).toBe(201);
    await receiver.until(() => receiver.to('/pages').length === 1, 'the delivery');
  });
  afterAll(() => receiver?.stop());

  it.each(['light', 'dark'] as const)(
    'should list the subscription, show it and its delivery, axe-core clean, in %s',
    async (scheme) => {
      const context = await web.browser.newContext({ colorScheme: scheme });
      await recordCspViolations(context);
      const page = await context.newPage();
      const violations: string[] = [];
      const found: Record<string, string[]> = {};
      const texts: Record<string, boolean> = {};
      const pages: [string, string, string][] = [
        ['list', '/api/webhooks', receiver.url('/pages')],
        ['subscription', `/api/webhooks/${id}`, 'Pages'],
        ['deliveries', `/api/webhooks/${id}/deliveries`, 'delivered'],
      ];
      for (const [name, path, text] of pages) {
        await page.goto(`${web.base}${path}`, { waitUntil: 'load' });
        violations.push(...(await cspViolations(page)));
        texts[name] = (await page.locator('main').innerText()).includes(text);
        const axe = await new AxeBuilder({ page })
          .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
          .analyze();
        found[name] = axe.violations.map(
          (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
        );
      }
      await context.close();
      expect({ found, texts, violations }).toEqual({
        found: { list: [], subscription: [], deliveries: [] },
        texts: { list: true, subscription: true, deliveries: true },
        violations: [],
      });
    },
    120_000,
  );
});
