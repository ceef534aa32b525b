import { Receiver } from '../../e2e/webhooks/receiver';
import { ServerProcess } from './process';

/**
 * Webhooks across a kill (test/ops/workers/webhook-failover.spec.ts, and on a Galera cluster
 * test/ops/galera/conflicts.spec.ts): `count` writes one at a time, `write(i)` answering the id
 * it created; after the tenth, once the first deliveries have arrived, `victim` (the instance
 * that delivers) is killed with SIGKILL, in the middle of the deliveries. Waits until every
 * record's event has arrived; answers the ids in the order written, and how long after the kill
 * the deliveries went on (the first arrival more than a second after it).
 */
export async function writesAcrossKill(
  receiver: Receiver,
  victim: ServerProcess,
  count: number,
  write: (i: number) => Promise<number>,
  waitMs: number,
): Promise<{ ids: number[]; resumedAfterMs: number }> {
  const ids: number[] = [];
  let killedAt = 0;
  for (let i = 0; i < count; i++) {
    ids.push(await write(i));
    if (i === 9) {
      await receiver.until(() => receiver.deliveries.length >= 5, 'the first deliveries');
      victim.child.kill('SIGKILL');
      killedAt = Date.now();
      await victim.exited;
    }
  }
  await receiver.until(
    () => new Set(receiver.deliveries.map((d) => d.event.record_id)).size === count,
    'every event',
    waitMs,
  );
  const resumed = receiver.deliveries.find((d) => d.at > killedAt + 1000);
  return { ids, resumedAfterMs: resumed!.at - killedAt };
}
