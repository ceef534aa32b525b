import {
  LocalCounters,
  secondsLeft,
  windowOf,
} from '../../../../../src/rest/http/rate-limit/counters';

describe('rate-limit windows and counters', () => {
  it('should align windows on the clock', () => {
    expect(windowOf(59_999, 60)).toBe(0);
    expect(windowOf(60_000, 60)).toBe(1);
    expect(secondsLeft(60_000, 60)).toBe(60);
    expect(secondsLeft(119_500, 60)).toBe(1);
    expect(secondsLeft(119_999, 60)).toBe(1);
  });

  it('should count each client and policy apart, and start again in a new window', () => {
    const counters = new LocalCounters();
    const hit = (client: string, now: number) =>
      counters.hit(
        [
          { policy: 'all', windowSeconds: 60, client },
          { policy: 'writes', windowSeconds: 3600, client },
        ],
        now,
      );
    expect(hit('a', 1000)).toEqual([1, 1]);
    expect(hit('a', 2000)).toEqual([2, 2]);
    expect(hit('b', 3000)).toEqual([1, 1]);
    expect(hit('a', 61_000)).toEqual([1, 3]);
  });
});
