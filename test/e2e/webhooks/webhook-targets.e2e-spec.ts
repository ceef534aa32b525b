/**
 * Safe targets (docs/webhooks.md): without WEBHOOK_ALLOW_PRIVATE, a subscription's URL must be
 * https to public addresses, checked at creation and on every change (400 naming the rule), and
 * again at each delivery: a row whose URL points at loopback (as when a name's DNS changed) gets
 * a failed attempt naming the rule, and its endpoint no request.
 */
import { useApp } from '../support/harness';
import { USERS } from '../support/fixtures';
import { expectJson } from '../support/http';
import { feedHead } from '../events/sse';
import { Receiver, eventually } from './receiver';

const TOKEN = 'webhook-targets-token-0123456789';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const PRIVATE = '(allowed only with WEBHOOK_ALLOW_PRIVATE=true).';

describe('webhook targets', () => {
  const t = useApp({
    apiToken: TOKEN,
    seed: { users: USERS },
    webhooks: {
      timeoutMs: 400,
      retryScheduleMs: [60_000],
      secretGraceMs: 60_000,
      allowPrivate: false,
      deliver: true,
      timing: { leaseMs: 3000, tickMs: 100, saveEveryMs: 50, pollMs: 20 },
    },
  });

  it.each([
    [
      'http://example.com/hook',
      'url must be an https:// URL (http:// is allowed only with WEBHOOK_ALLOW_PRIVATE=true).',
    ],
    [
      'https://127.0.0.1/hook',
      `url must point at a public address: 127.0.0.1 is a loopback address ${PRIVATE}`,
    ],
    [
      'https://10.1.2.3/hook',
      `url must point at a public address: 10.1.2.3 is a private address ${PRIVATE}`,
    ],
    [
      'https://169.254.169.254/latest',
      `url must point at a public address: 169.254.169.254 is a link-local address ${PRIVATE}`,
    ],
    [
      'https://[::1]:8443/hook',
      `url must point at a public address: ::1 is a loopback address ${PRIVATE}`,
    ],
    [
      'https://[::ffff:192.168.1.9]/',
      `url must point at a public address: ::ffff:c0a8:109 is a private address ${PRIVATE}`,
    ],
    [
      'https://[fd00::5]/',
      `url must point at a public address: fd00::5 is a private (unique local) address ${PRIVATE}`,
    ],
    [
      'https://0.0.0.0/',
      `url must point at a public address: 0.0.0.0 is a "this network" address ${PRIVATE}`,
    ],
    ['https://bot:pw@example.com/', 'url must not carry a user name or password.'],
    ['hook', 'url must be an absolute https:// URL, got "hook".'],
  ])('should refuse %s with 400 naming the rule', async (url, rule) => {
    const res = await t.http().post('/api/webhooks').set(AUTH).send({ url });
    expectJson(res, 400);
    expect(res.body).toEqual({ message: rule, errors: { url: [rule] } });
    expect(await t.rows('webhook_subscriptions')).toEqual([]);
  });

  it('should refuse a name that resolves to a loopback address', async () => {
    const res = await t
      .http()
      .post('/api/webhooks')
      .set(AUTH)
      .send({ url: 'https://localhost/hook' });
    expectJson(res, 400);
    expect(res.body.message).toMatch(
      /^url must point at a public address: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address \(allowed only with WEBHOOK_ALLOW_PRIVATE=true\)\.$/,
    );
  });

  it('should accept a public address, and refuse to change it to a private one', async () => {
    const created = await t
      .http()
      .post('/api/webhooks')
      .set(AUTH)
      .send({ url: 'https://93.184.215.14/hook', status: 'disabled' });
    expectJson(created, 201);
    const changed = await t
      .http()
      .patch(`/api/webhooks/${created.body.id}`)
      .set(AUTH)
      .send({ url: 'https://192.168.0.1/hook' });
    expectJson(changed, 400);
    expect(changed.body.message).toBe(
      `url must point at a public address: 192.168.0.1 is a private address ${PRIVATE}`,
    );
    expect((await t.http().get(`/api/webhooks/${created.body.id}`).set(AUTH)).body.url).toBe(
      'https://93.184.215.14/hook',
    );
    await t.http().delete(`/api/webhooks/${created.body.id}`).set(AUTH);
  });

  it('should check the address again at each delivery, and connect to nothing it refuses', async () => {
    const receiver = await Receiver.start();
    try {
      // A row as an older, looser configuration (or a name whose DNS changed) would have left.
      const after = await feedHead(t);
      const now = Date.now();
      const url = receiver.url('/looped').replace('http:', 'https:');
      await t.insert('webhook_subscriptions', [
        {
          url,
          description: '',
          collections: 'marbles',
          actions: null,
          status: 'active',
          disabled_reason: null,
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0ZTQo9MGDyA=',
          previous_secret: null,
          previous_secret_until: null,
          created_at: now,
          updated_at: now,
          last_event: after,
          attempt: 0,
          next_attempt_at: 0,
          epoch: 0,
          holder: '',
          lease_until: 0,
        },
      ]);
      const id = await t.lastId('webhook_subscriptions');
      const marble = await t.http().post('/api/demo/marbles').set(AUTH).send({ name: 'Looped' });
      expectJson(marble, 201);
      let kept: Record<string, unknown>[] = [];
      await eventually(async () => {
        kept = (await t.http().get(`/api/webhooks/${id}/deliveries`).set(AUTH)).body.results;
        return kept.length === 1;
      }, 'the refused attempt');
      expect(kept[0]).toMatchObject({
        attempt: 1,
        outcome: 'failed',
        status_code: null,
        error: `url must point at a public address: 127.0.0.1 is a loopback address ${PRIVATE}`,
      });
      expect(receiver.deliveries).toEqual([]);
      await t.http().delete(`/api/webhooks/${id}`).set(AUTH);
    } finally {
      await receiver.stop();
    }
  });
});
