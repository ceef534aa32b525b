/**
 * Webhooks (docs/webhooks.md): subscriptions at /api/webhooks behind the `webhooks:admin` scope
 * or the API token, and the change feed delivered to receivers of the suite's own on loopback
 * (WEBHOOK_ALLOW_PRIVATE), signed by Standard Webhooks (checked with Node's crypto and with the
 * `standardwebhooks` package), in feed order, one at a time, retried on a short schedule, given
 * up, disabled by a 410, not following redirects, replayed and with a rotated secret.
 */
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { COLLECTION_NAMES } from '../../sources';
import { useApp } from '../support/harness';
import { USERS } from '../support/fixtures';
import { ISO_MS, VALIDATION_FAILED, expectJson, expectXml } from '../support/http';
import { feedHead } from '../events/sse';
import { Delivery, Receiver, eventually } from './receiver';

const TOKEN = 'webhooks-suite-token-0123456789';
const METRICS_TOKEN = 'webhooks-suite-metrics-0123456789';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
/** The delays of a failed delivery: short, so that retries and give-ups take milliseconds. */
const SCHEDULE = [50, 100];

interface View {
  id: number;
  url: string;
  secret: string;
  last_event_id: string;
  status: string;
  [key: string]: unknown;
}

describe('webhooks', () => {
  const t = useApp({
    apiToken: TOKEN,
    metricsToken: METRICS_TOKEN,
    seed: { users: USERS },
    webhooks: {
      timeoutMs: 400,
      retryScheduleMs: SCHEDULE,
      secretGraceMs: 60_000,
      allowPrivate: true,
      deliver: true,
      timing: { leaseMs: 3000, tickMs: 100, saveEveryMs: 50, pollMs: 20 },
    },
  });
  let receiver: Receiver;
  let path = 0;

  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(() => receiver.stop());

  /** A subscription to a path of the receiver of its own, its secret known to the receiver. */
  async function subscribe(extra: Record<string, unknown> = {}): Promise<View & { path: string }> {
    const at = `/hook${++path}`;
    const res = await t
      .http()
      .post('/api/webhooks')
      .set(AUTH)
      .send({ url: receiver.url(at), ...extra });
    expectJson(res, 201);
    receiver.secrets.push(res.body.secret as string);
    return { ...(res.body as View), path: at };
  }

  async function unsubscribe(id: number): Promise<void> {
    const res = await t.http().delete(`/api/webhooks/${id}`).set(AUTH);
    expect(res.status).toBe(204);
  }

  async function createMarble(name: string): Promise<number> {
    const res = await t.http().post('/api/demo/marbles').set(AUTH).send({ name });
    expectJson(res, 201);
    return res.body.id as number;
  }

  async function attempts(id: number): Promise<Record<string, unknown>[]> {
    const res = await t.http().get(`/api/webhooks/${id}/deliveries`).set(AUTH);
    expectJson(res, 200);
    return res.body.results as Record<string, unknown>[];
  }

  const ids = (deliveries: Delivery[]) => deliveries.map((d) => d.event.id);

  it('should need the API token or the webhooks:admin scope, reads included', async () => {
    for (const res of [
      await t.http().get('/api/webhooks'),
      await t.http().post('/api/webhooks').send({ url: receiver.url() }),
      await t.http().get('/api/webhooks/1/deliveries'),
    ]) {
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="records"');
      expect(res.body).toEqual({
        message: 'Webhook subscriptions need a valid bearer token (Authorization: Bearer <token>).',
      });
    }
  });

  it('should create a subscription at the present, with a whsec_ secret, and show, list and change it', async () => {
    const { head } = await feedBounds();
    const before = Date.now();
    const res = await t
      .http()
      .post('/api/webhooks')
      .set(AUTH)
      .send({
        url: receiver.url('/one'),
        collections: ['marbles', 'emails'],
        actions: ['deleted', 'created'],
        description: 'Billing',
      });
    expectJson(res, 201);
    const created = res.body as View;
    expect(res.headers.location).toMatch(new RegExp(`/api/webhooks/${created.id}$`));
    expect(Object.keys(created)).toEqual([
      'id',
      'url',
      'description',
      'collections',
      'actions',
      'status',
      'disabled_reason',
      'secret',
      'last_event_id',
      'created_at',
      'updated_at',
    ]);
    expect(created).toMatchObject({
      url: receiver.url('/one'),
      description: 'Billing',
      // In the order the service knows them, whatever the order sent.
      collections: ['emails', 'marbles'],
      actions: ['created', 'deleted'],
      status: 'active',
      disabled_reason: null,
      last_event_id: String(head),
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    expect(Date.parse(created.created_at as string)).toBeGreaterThanOrEqual(before - 1);
    expect(created.created_at).toMatch(ISO_MS);

    const shown = await t.http().get(`/api/webhooks/${created.id}`).set(AUTH);
    expectJson(shown, 200);
    expect(shown.body).toEqual(created);
    expect(shown.headers.link).toBe(
      `</api/webhooks/${created.id}/deliveries>; rel="related"; title="Its latest delivery attempts"`,
    );
    const listed = await t.http().get('/api/webhooks').set(AUTH);
    expectJson(listed, 200);
    expect(listed.body.results).toContainEqual(created);

    const changed = await t
      .http()
      .patch(`/api/webhooks/${created.id}`)
      .set(AUTH)
      .send({ collections: null, description: 'All of it', id: 99, secret: 'ignored' });
    expectJson(changed, 200);
    expect(changed.body).toMatchObject({
      id: created.id,
      collections: null,
      actions: ['created', 'deleted'],
      description: 'All of it',
      secret: created.secret,
    });
    const paused = await t
      .http()
      .patch(`/api/webhooks/${created.id}`)
      .set(AUTH)
      .send({ status: 'disabled' });
    expectJson(paused, 200);
    expect(paused.body).toMatchObject({
      status: 'disabled',
      disabled_reason: 'disabled through the API',
    });
    await unsubscribe(created.id);
    expect((await t.http().get(`/api/webhooks/${created.id}`).set(AUTH)).status).toBe(404);
  });

  it('should answer XML too', async () => {
    const res = await t
      .http()
      .post('/api/webhooks.xml')
      .set(AUTH)
      .set('Content-Type', 'application/xml')
      .send(
        `<webhook><url>${receiver.url('/xml')}</url><collections type="array"><collection>marbles</collection></collections></webhook>`,
      );
    expectXml(res, 201);
    expect(res.text).toContain(`<url>${receiver.url('/xml')}</url>`);
    expect(res.text).toContain(
      '<collections type="array"><collection>marbles</collection></collections>',
    );
    expect(res.text).toContain('<actions nil="true"/>');
    const id = Number(/<id type="integer">(\d+)<\/id>/.exec(res.text)![1]);
    const list = await t.http().get('/api/webhooks').set(AUTH).set('Accept', 'application/xml');
    expectXml(list, 200);
    expect(list.text).toContain('<results type="array"><result>');
    await unsubscribe(id);
  });

  it('should refuse a bad subscription with 400, naming each problem', async () => {
    const bad = await t
      .http()
      .post('/api/webhooks')
      .set(AUTH)
      .send({ collections: ['marbles', 'rocks'], actions: [], colour: 'red' });
    expectJson(bad, 400);
    expect(bad.body).toEqual({
      message: VALIDATION_FAILED,
      errors: {
        colour: ['Unknown field.'],
        url: ['This field is required.'],
        collections: [`No collection named "rocks"; known: ${COLLECTION_NAMES.join(', ')}.`],
        actions: [
          'Must be a non-empty list of created, updated, deleted (or null, or left out, for all).',
        ],
      },
    });
    const ftp = await t.http().post('/api/webhooks').set(AUTH).send({ url: 'ftp://example.com/' });
    expectJson(ftp, 400);
    expect(ftp.body).toEqual({
      message: 'url must be an https:// URL, got "ftp:".',
      errors: { url: ['url must be an https:// URL, got "ftp:".'] },
    });
    for (const id of ['abc', '0', '99999']) {
      const res = await t.http().get(`/api/webhooks/${id}`).set(AUTH);
      expectJson(res, 404);
      expect(res.body).toEqual({ message: `Webhook subscription ${id} not found.` });
    }
  });

  it('should deliver each matching event as the feed renders it, signed by Standard Webhooks', async () => {
    const sub = await subscribe({ collections: ['marbles'] });
    const before = Math.floor(Date.now() / 1000);
    const id = await createMarble('Webhook Opal');
    await receiver.until(() => receiver.to(sub.path).length === 1, 'the delivery');
    const [delivery] = receiver.to(sub.path);
    const page = await t.http().get(`/api/events?after=${sub.last_event_id}`);
    const event = (page.body.results as Record<string, unknown>[]).find(
      (e) => e.collection === 'marbles' && e.record_id === id,
    )!;
    // The body is the event exactly as the feed's page renders it.
    expect(delivery.event).toEqual(event);
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['webhook-id']).toBe(event.id);
    const timestamp = Number(delivery.headers['webhook-timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(delivery.signedWith).toEqual([sub.secret]);
    // The reference library verifies it too.
    expect(new Webhook(sub.secret).verify(delivery.body, delivery.headers)).toEqual(event);
    await eventually(async () => (await attempts(sub.id)).length === 1, 'the attempt to be kept');
    expect(await attempts(sub.id)).toEqual([
      {
        event_id: event.id,
        attempt: 1,
        at: expect.stringMatching(ISO_MS),
        outcome: 'delivered',
        status_code: 204,
        error: null,
        next_attempt_at: null,
        duration_ms: expect.any(Number),
      },
    ]);
    await unsubscribe(sub.id);
  });

  it('should deliver only the collections and actions subscribed to', async () => {
    const sub = await subscribe({ collections: ['marbles'], actions: ['deleted'] });
    const id = await createMarble('Webhook Onyx');
    await t.http().patch(`/api/demo/marbles/${id}`).set(AUTH).send({ radius_mm: 3 });
    const email = await t
      .http()
      .post('/api/demo/emails')
      .set(AUTH)
      .send({ email: 'w@x.io', user_id: 1 });
    await t.http().delete(`/api/demo/emails/${email.body.id}`).set(AUTH);
    await t.http().delete(`/api/demo/marbles/${id}`).set(AUTH);
    await receiver.until(() => receiver.to(sub.path).length === 1, 'the delivery');
    // Everything after is delivered, and nothing else came before the delete of the marble.
    const all = await subscribe();
    await createMarble('Webhook Marker');
    await receiver.until(() => receiver.to(all.path).length === 1, 'the marker');
    expect(receiver.to(sub.path).map((d) => [d.event.collection, d.event.action])).toEqual([
      ['marbles', 'deleted'],
    ]);
    await unsubscribe(sub.id);
    await unsubscribe(all.id);
  });

  it('should deliver in feed order, one at a time, each event once', async () => {
    const sub = await subscribe({ collections: ['marbles'] });
    let open = 0;
    let most = 0;
    receiver.answer = (d) => {
      if (d.path !== sub.path) return { status: 204 };
      most = Math.max(most, ++open);
      setTimeout(() => open--, 5);
      return { status: 204, delayMs: 5 };
    };
    const created = await Promise.all(
      Array.from({ length: 15 }, (_, i) => createMarble(`Webhook Order ${i}`)),
    );
    await receiver.until(() => receiver.to(sub.path).length >= 15, '15 deliveries');
    const page = await t.http().get(`/api/events?collections=marbles&after=${sub.last_event_id}`);
    const feed = (page.body.results as { id: string }[]).map((e) => e.id);
    expect(ids(receiver.to(sub.path))).toEqual(feed);
    expect(
      receiver
        .to(sub.path)
        .map((d) => d.event.record_id)
        .sort(),
    ).toEqual([...created].sort());
    expect(most).toBe(1);
    receiver.answer = () => ({ status: 204 });
    await unsubscribe(sub.id);
  });

  it('should try a failed delivery again on the schedule, with the same webhook-id, before the next event', async () => {
    const sub = await subscribe({ collections: ['marbles'] });
    let failures = 2;
    receiver.answer = (d) =>
      d.path === sub.path && failures-- > 0 ? { status: 503 } : { status: 204 };
    await createMarble('Webhook Retry 1');
    await createMarble('Webhook Retry 2');
    await receiver.until(() => receiver.to(sub.path).length === 4, 'four requests');
    const got = receiver.to(sub.path);
    const [first, second] = [got[0].event.id, got[3].event.id];
    expect(ids(got)).toEqual([first, first, first, second]);
    expect(Number(second)).toBeGreaterThan(Number(first));
    // The delays of the schedule between the attempts, at least.
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(SCHEDULE[0] - 5);
    expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(SCHEDULE[1] - 5);
    await eventually(async () => (await attempts(sub.id)).length === 4, 'four attempts kept');
    const kept = await attempts(sub.id);
    expect(kept.map((a) => [a.event_id, a.attempt, a.outcome, a.status_code])).toEqual([
      [second, 1, 'delivered', 204],
      [first, 3, 'delivered', 204],
      [first, 2, 'failed', 503],
      [first, 1, 'failed', 503],
    ]);
    expect(kept[3].next_attempt_at).toMatch(ISO_MS);
    receiver.answer = () => ({ status: 204 });
    await unsubscribe(sub.id);
  });

  it('should give an event up after the last delay, record it, and go on with the next', async () => {
    const sub = await subscribe({ collections: ['marbles'] });
    const doomed = await createMarble('Webhook Doomed');
    receiver.answer = (d) =>
      d.path === sub.path && d.event.record_id === doomed ? { status: 500 } : { status: 204 };
    await createMarble('Webhook After');
    await receiver.until(() => receiver.to(sub.path).length === 4, 'three attempts and the next');
    const got = receiver.to(sub.path);
    expect(got.map((d) => d.event.record_id).slice(0, 3)).toEqual([doomed, doomed, doomed]);
    await eventually(async () => (await attempts(sub.id)).length === 4, 'the attempts kept');
    expect((await attempts(sub.id)).map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'delivered'],
      [3, 'given_up'],
      [2, 'failed'],
      [1, 'failed'],
    ]);
    receiver.answer = () => ({ status: 204 });
    await unsubscribe(sub.id);
  });

  it('should count an answer later than WEBHOOK_TIMEOUT as failed, and follow no redirect', async () => {
    const sub = await subscribe({ collections: ['marbles'] });
    let calls = 0;
    receiver.answer = (d) => {
      if (d.path !== sub.path) return { status: 204 };
      calls++;
      if (calls === 1) return { status: 204, delayMs: 1500 };
      if (calls === 2) return { status: 302, headers: { Location: receiver.url('/elsewhere') } };
      return { status: 200 };
    };
    await createMarble('Webhook Slow');
    await receiver.until(() => receiver.to(sub.path).length === 3, 'three attempts');
    await eventually(async () => (await attempts(sub.id)).length === 3, 'the attempts kept');
    const kept = await attempts(sub.id);
    expect(kept.map((a) => [a.attempt, a.outcome, a.status_code])).toEqual([
      [3, 'delivered', 200],
      [2, 'failed', 302],
      [1, 'failed', null],
    ]);
    expect(kept[2].error).toBe('no answer within 400 ms (WEBHOOK_TIMEOUT)');
    expect(receiver.to('/elsewhere')).toEqual([]);
    receiver.answer = () => ({ status: 204 });
    await unsubscribe(sub.id);
  });

  it('should not let an endpoint that does not answer hold the other subscriptions or the writes', async () => {
    const stuck = await subscribe({ collections: ['marbles'] });
    const healthy = await subscribe({ collections: ['marbles'] });
    receiver.answer = (d) =>
      d.path === stuck.path ? { status: 204, delayMs: 5000 } : { status: 204 };
    for (const name of ['Webhook Free 1', 'Webhook Free 2', 'Webhook Free 3'])
      await createMarble(name);
    await receiver.until(() => receiver.to(healthy.path).length === 3, 'the healthy deliveries');
    // All three went out while the stuck endpoint still held its first event.
    expect(new Set(ids(receiver.to(stuck.path)))).toEqual(
      new Set([receiver.to(healthy.path)[0].event.id]),
    );
    receiver.answer = () => ({ status: 204 });
    await unsubscribe(stuck.id);
    await unsubscribe(healthy.id);
  });

  it('should disable a subscription whose endpoint answers 410, and go on from there when enabled again', async () => {
    const sub = await subscribe({ collections: ['marbles'] });
    let gone = true;
    receiver.answer = (d) => (d.path === sub.path && gone ? { status: 410 } : { status: 204 });
    await createMarble('Webhook Gone');
    await eventually(
      async () =>
        (await t.http().get(`/api/webhooks/${sub.id}`).set(AUTH)).body.status === 'disabled',
      'the subscription disabled',
    );
    const disabled = await t.http().get(`/api/webhooks/${sub.id}`).set(AUTH);
    const first = receiver.to(sub.path)[0].event.id;
    expect(disabled.body).toMatchObject({
      status: 'disabled',
      disabled_reason: `the endpoint answered 410 Gone to event ${first}`,
    });
    await createMarble('Webhook While Disabled');
    expect(receiver.to(sub.path)).toHaveLength(1);
    gone = false;
    const enabled = await t
      .http()
      .patch(`/api/webhooks/${sub.id}`)
      .set(AUTH)
      .send({ status: 'active' });
    expectJson(enabled, 200);
    expect(enabled.body).toMatchObject({ status: 'active', disabled_reason: null });
    await receiver.until(() => receiver.to(sub.path).length === 3, 'the two events');
    const got = ids(receiver.to(sub.path));
    expect(got[1]).toBe(first);
    expect(Number(got[2])).toBeGreaterThan(Number(first));
    receiver.answer = () => ({ status: 204 });
    await unsubscribe(sub.id);
  });

  it('should send the events after a cursor again on replay', async () => {
    const sub = await subscribe({ collections: ['marbles'] });
    for (const name of ['Webhook R1', 'Webhook R2', 'Webhook R3']) await createMarble(name);
    await receiver.until(() => receiver.to(sub.path).length === 3, 'three deliveries');
    const sent = ids(receiver.to(sub.path));
    const replay = await t
      .http()
      .post(`/api/webhooks/${sub.id}/replay`)
      .set(AUTH)
      .send({ after: sent[0] });
    expectJson(replay, 200);
    expect(replay.body).toEqual({
      message: `The events after ${sent[0]} that this subscription takes will be sent again, in order.`,
    });
    await receiver.until(() => receiver.to(sub.path).length === 5, 'the replay');
    expect(ids(receiver.to(sub.path))).toEqual([...sent, sent[1], sent[2]]);
    const bad = await t
      .http()
      .post(`/api/webhooks/${sub.id}/replay`)
      .set(AUTH)
      .send({ after: 'yesterday' });
    expectJson(bad, 400);
    const ahead = await t
      .http()
      .post(`/api/webhooks/${sub.id}/replay`)
      .set(AUTH)
      .send({ after: '999999' });
    expectJson(ahead, 409);
    await unsubscribe(sub.id);
  });

  it('should sign with the old and the new secret after a rotation', async () => {
    const sub = await subscribe({ collections: ['marbles'] });
    const rotated = await t.http().post(`/api/webhooks/${sub.id}/rotate_secret`).set(AUTH);
    expectJson(rotated, 200);
    const secret = rotated.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(sub.secret);
    receiver.secrets.push(secret);
    await createMarble('Webhook Rotated');
    await receiver.until(() => receiver.to(sub.path).length === 1, 'the delivery');
    const [delivery] = receiver.to(sub.path);
    expect(delivery.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(delivery.signedWith.sort()).toEqual([sub.secret, secret].sort());
    expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toEqual(delivery.event);
    expect(new Webhook(sub.secret).verify(delivery.body, delivery.headers)).toEqual(delivery.event);
    await unsubscribe(sub.id);
  });

  it('should list the subscriptions and their deliveries on the browsable pages', async () => {
    const sub = await subscribe({ collections: ['marbles'], description: 'Page <b>test</b>' });
    await createMarble('Webhook Page');
    await receiver.until(() => receiver.to(sub.path).length === 1, 'the delivery');
    await eventually(async () => (await attempts(sub.id)).length === 1, 'the attempt kept');
    // The pages are no media type of the OpenAPI document: plain supertest, unchecked.
    const html = (path: string) =>
      request(t.app.getHttpServer()).get(path).set(AUTH).set('Accept', 'text/html');
    const list = await html('/api/webhooks');
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(list.text).toContain('<h1>The webhook subscriptions</h1>');
    expect(list.text).toContain(`<a href="/api/webhooks/${sub.id}">${sub.id}</a>`);
    expect(list.text).toContain('Page &lt;b&gt;test&lt;/b&gt;');
    expect(list.text).not.toContain('<b>test</b>');
    const one = await html(`/api/webhooks/${sub.id}`);
    expect(one.status).toBe(200);
    expect(one.text).toContain(
      `<a href="/api/webhooks/${sub.id}/deliveries">Its latest delivery attempts</a>`,
    );
    const deliveries = await html(`/api/webhooks/${sub.id}/deliveries`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.text).toContain('<th scope="col">event_id</th>');
    expect(deliveries.text).toContain('<td>delivered</td>');
    await unsubscribe(sub.id);
  });

  it('should tell the deliveries in /metrics and in /health/ready', async () => {
    const sub = await subscribe({ collections: ['marbles'] });
    await createMarble('Webhook Health');
    await receiver.until(() => receiver.to(sub.path).length === 1, 'the delivery');
    const metrics = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^webhook_attempts_total\{outcome="delivered"\} \d+$/m);
    expect(metrics.text).toMatch(/^webhook_attempts_total\{outcome="failed"\} \d+$/m);
    expect(metrics.text).toMatch(/^webhook_delivery_lag_seconds_count \d+$/m);
    expect(metrics.text).toMatch(/^webhook_subscriptions\{status="active"\} \d+$/m);
    // Their numbers are read again at most every 2 s.
    let ready = await t.http().get('/health/ready');
    await eventually(async () => {
      ready = await t.http().get('/health/ready');
      return ready.body.details.webhooks !== undefined;
    }, 'the webhooks in /health/ready');
    expectJson(ready, 200);
    expect(ready.body.details.webhooks).toEqual({
      status: 'up',
      active: 1,
      disabled: 0,
      delivered_here: 1,
      behind_here: 0,
      max_lag_seconds: 0,
    });
    await unsubscribe(sub.id);
  });

  async function feedBounds(): Promise<{ head: number }> {
    return { head: await feedHead(t) };
  }
});
