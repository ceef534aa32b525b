/**
 * Webhooks across instances (docs/webhooks.md): two built servers on one database; the one that
 * created a subscription delivers it (its lease) while writes go through the other; it is killed
 * with SIGKILL in the middle of the deliveries. The other takes the subscription over once the
 * lease has run out (10 s), well within 30 s, and goes on from the saved position: every event
 * arrives, the first arrival of each in feed order, and a repeat (what the dead one delivered
 * after its last save) carries the same webhook-id.
 */
import { Receiver, eventually } from '../../e2e/webhooks/receiver';
import { PROCESS_TIMEOUT, ServerProcess, sqliteUrl, startServer } from '../support/process';
import { writesAcrossKill } from '../support/webhook-kill';

const TOKEN = 'webhook-failover-token-0123456789';
const AUTH = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
const WRITES = 40;

async function call(server: ServerProcess, method: string, path: string, body?: unknown) {
  const res = await fetch(server.url(path), {
    method,
    headers: AUTH,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Two instances on one new SQLite database, receivers on loopback. */
function instanceEnv(): Record<string, string> {
  return {
    DATABASE_URL: sqliteUrl(),
    API_TOKEN: TOKEN,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    LOG_LEVEL: 'warn',
    DEMO_DATA: 'false',
  };
}

describe('webhooks when the instance that delivers them is killed', () => {
  let receiver: Receiver;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    for (const server of servers) if (!server.exit) server.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await receiver.stop();
  }, PROCESS_TIMEOUT);

  it(
    'should be delivered on by the other instance within 30 s, nothing skipped, in order',
    async () => {
      const env = instanceEnv();
      const first = await startServer(env);
      servers.push(first);
      await first.waitReady();
      const second = await startServer(env);
      servers.push(second);
      await second.waitReady();

      const created = await call(first, 'POST', '/api/webhooks', {
        url: receiver.url('/failover'),
        collections: ['marbles'],
      });
      expect(created.status).toBe(201);
      receiver.secrets.push(created.body.secret as string);
      // Slow enough that the kill lands in the middle of the deliveries.
      receiver.answer = () => ({ status: 204, delayMs: 30 });

      const { ids, resumedAfterMs } = await writesAcrossKill(
        receiver,
        first,
        WRITES,
        async (i) => {
          const res = await call(second, 'POST', '/api/demo/marbles', { name: `Failover ${i}` });
          expect(res.status).toBe(201);
          return res.body.id as number;
        },
        30_000,
      );
      expect(resumedAfterMs).toBeLessThan(30_000);

      const feed = await fetch(
        second.url(
          `/api/events?collections=marbles&limit=1000&after=${created.body.last_event_id}`,
        ),
      );
      const events = ((await feed.json()) as { results: { id: string; record_id: number }[] })
        .results;
      expect(events.map((e) => e.record_id)).toEqual(ids);
      // First arrivals in feed order; repeats only of what had arrived, same id and body.
      const firsts: string[] = [];
      for (const d of receiver.deliveries) {
        expect(d.signedWith).toEqual([created.body.secret]);
        expect(d.headers['webhook-id']).toBe(d.event.id);
        if (!firsts.includes(d.event.id)) firsts.push(d.event.id);
      }
      expect(firsts).toEqual(events.map((e) => e.id));
    },
    PROCESS_TIMEOUT,
  );

  it(
    'should leave every delivery to the instances that deliver (WEBHOOK_DELIVERY=false)',
    async () => {
      const env = instanceEnv();
      const writer = await startServer({ ...env, WEBHOOK_DELIVERY: 'false' });
      servers.push(writer);
      await writer.waitReady();
      const created = await call(writer, 'POST', '/api/webhooks', {
        url: receiver.url('/delivered-elsewhere'),
        collections: ['marbles'],
      });
      expect(created.status).toBe(201);
      receiver.secrets.push(created.body.secret as string);
      receiver.answer = () => ({ status: 204 });
      const names = ['Elsewhere 1', 'Elsewhere 2', 'Elsewhere 3'];
      for (const name of names) {
        expect((await call(writer, 'POST', '/api/demo/marbles', { name })).status).toBe(201);
      }
      // The writer holds nothing: the subscription waits, whole, for an instance that delivers.
      const before = receiver.to('/delivered-elsewhere').length;
      const deliverer = await startServer(env);
      servers.push(deliverer);
      await deliverer.waitReady();
      await receiver.until(
        () => receiver.to('/delivered-elsewhere').length === names.length,
        'the three events, from the instance that delivers',
        30_000,
      );
      expect(before).toBe(0);
      const delivered = receiver.to('/delivered-elsewhere');
      expect(delivered.map((d) => (d.event.record as { name: string }).name)).toEqual(names);

      const here = async (server: ServerProcess) => {
        const res = await fetch(server.url('/health/ready'));
        const body = (await res.json()) as { details: { webhooks?: { delivered_here: number } } };
        return body.details.webhooks?.delivered_here;
      };
      // Their numbers are read again at most every 2 s.
      let numbers: unknown[] = [];
      await eventually(async () => {
        numbers = [await here(writer), await here(deliverer)];
        return numbers.every((n) => n !== undefined);
      }, 'the readiness numbers');
      expect(numbers).toEqual([0, 1]);
    },
    PROCESS_TIMEOUT,
  );
});
