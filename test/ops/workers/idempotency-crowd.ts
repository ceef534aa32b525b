/**
 * Many concurrent requests with one Idempotency-Key, sent to a server started with
 * WEB_CONCURRENCY=2 (two worker processes writing under the same key): exactly one writes, every other
 * one gets its replay or a 409, none a 5xx.
 */
import { ServerProcess } from '../support/process';

export interface CrowdResult {
  status: number;
  replayed: boolean;
  text: string;
}

/** `n` concurrent POSTs of one body with one key, each on a connection of its own. */
export async function crowd(server: ServerProcess, key: string, n: number): Promise<CrowdResult[]> {
  const body = JSON.stringify({ name: `Crowd ${key}` });
  return Promise.all(
    Array.from({ length: n }, async () => {
      const res = await fetch(server.url('/api/demo/marbles'), {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Idempotency-Key': key,
          Connection: 'close',
        },
        body,
      });
      return {
        status: res.status,
        replayed: res.headers.get('idempotent-replayed') === 'true',
        text: await res.text(),
      };
    }),
  );
}

/** One 201 that wrote; the others are its replay (the same text) or 409; nothing else. */
export function expectOneWrite(results: CrowdResult[]): void {
  const written = results.filter((r) => r.status === 201 && !r.replayed);
  expect(written).toHaveLength(1);
  const others = results
    .filter((r) => r !== written[0])
    .map((r) =>
      r.status === 201 && r.replayed && r.text === written[0].text ? 'replay' : r.status,
    );
  expect(others.filter((o) => o !== 'replay' && o !== 409)).toEqual([]);
}

/** How the answers split: written, replayed, 409, other (docs/reliability.md's figures). */
export function tally(results: CrowdResult[]): Record<string, number> {
  const count = (test: (r: CrowdResult) => boolean) => results.filter(test).length;
  return {
    written: count((r) => r.status === 201 && !r.replayed),
    replayed: count((r) => r.status === 201 && r.replayed),
    conflict: count((r) => r.status === 409),
    other: count((r) => r.status !== 201 && r.status !== 409),
  };
}
