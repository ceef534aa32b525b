/**
 * Request counters in fixed windows aligned on the clock (a window of 60 s runs from each whole
 * minute), so every instance agrees on which window a request falls in without talking: the
 * count of a client in a window is one number, kept in this process (`LocalCounters`) or in
 * Redis (`RedisCounters`, one round trip for every policy a request counts against).
 */
import Redis from 'ioredis';

/** One counter to move: which policy, which client, in the window that `now` falls in. */
export interface Hit {
  policy: string;
  windowSeconds: number;
  client: string;
}

export interface Counters {
  /** Adds one to each counter and answers the counts, in the same order. */
  hit(hits: readonly Hit[], now: number): Promise<number[]> | number[];
}

/** The number of the window `now` (ms) falls in. */
export function windowOf(now: number, windowSeconds: number): number {
  return Math.floor(now / (windowSeconds * 1000));
}

/** Seconds until the window `now` falls in ends (at least 1). */
export function secondsLeft(now: number, windowSeconds: number): number {
  const ms = windowSeconds * 1000;
  return Math.max(1, Math.ceil((ms - (now % ms)) / 1000));
}

/** The counts of this process: one map per policy, emptied when its window turns. */
export class LocalCounters implements Counters {
  private readonly windows = new Map<string, { window: number; counts: Map<string, number> }>();

  hit(hits: readonly Hit[], now: number): number[] {
    return hits.map(({ policy, windowSeconds, client }) => {
      const window = windowOf(now, windowSeconds);
      let current = this.windows.get(policy);
      if (!current || current.window !== window) {
        current = { window, counts: new Map() };
        this.windows.set(policy, current);
      }
      const count = (current.counts.get(client) ?? 0) + 1;
      current.counts.set(client, count);
      return count;
    });
  }
}

/**
 * INCR of each key, and on the first hit an expiry a little past the window's end: Redis drops
 * a window's counters by itself. One script, so a request's counters move in one round trip.
 */
const HIT_SCRIPT = `
local counts = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, ARGV[i]) end
  counts[i] = count
end
return counts`;

type WithHits = Redis & {
  recordsRateHits(keyCount: number, ...keysThenTtls: (string | number)[]): Promise<number[]>;
};

/** The counts every instance shares, in Redis, under `prefix`. */
export class RedisCounters implements Counters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('recordsRateHits', { lua: HIT_SCRIPT });
  }

  hit(hits: readonly Hit[], now: number): Promise<number[]> {
    const keys: string[] = [];
    const ttls: number[] = [];
    for (const { policy, windowSeconds, client } of hits) {
      keys.push(`${this.prefix}${policy}:${windowOf(now, windowSeconds)}:${client}`);
      ttls.push(secondsLeft(now, windowSeconds) * 1000 + 1000);
    }
    return (this.redis as WithHits).recordsRateHits(keys.length, ...keys, ...ttls);
  }
}
