import { MAX_WAIT_MS, RefusalPace } from '../../../../src/rest/http/request/refusal-pace';

/** A pace on a clock the test moves. */
function paceAt(limit: number, windowSeconds: number) {
  const clock = { now: 1_000 };
  const pace = new RefusalPace({ limit, windowSeconds }, () => clock.now);
  return { pace, clock };
}

describe('RefusalPace', () => {
  it('should answer a burst of `limit` refusals at once, then one every window / limit', () => {
    const { pace } = paceAt(20, 1);
    const waits = Array.from({ length: 23 }, () => pace.wait('10.0.0.1'));
    expect(waits.slice(0, 20)).toEqual(Array(20).fill(0));
    expect(waits.slice(20)).toEqual([50, 100, 150]);
  });

  it('should pace each peer on its own', () => {
    const { pace } = paceAt(2, 1);
    expect([pace.wait('a'), pace.wait('a'), pace.wait('a')]).toEqual([0, 0, 500]);
    expect([pace.wait('b'), pace.wait('b')]).toEqual([0, 0]);
  });

  it('should give the burst back as time passes, and no more than the burst', () => {
    const { pace, clock } = paceAt(2, 1);
    expect([pace.wait('a'), pace.wait('a'), pace.wait('a')]).toEqual([0, 0, 500]);
    // 1.5 s on: the turns taken are behind it, and the burst is whole again.
    clock.now += 1_500;
    expect([pace.wait('a'), pace.wait('a'), pace.wait('a')]).toEqual([0, 0, 500]);
    // A long quiet time gives a burst, not a credit of every refusal it could have had.
    clock.now += 3_600_000;
    expect([pace.wait('a'), pace.wait('a'), pace.wait('a')]).toEqual([0, 0, 500]);
  });

  it('should not wait more than MAX_WAIT_MS: past it, undefined, and the turn is not taken', () => {
    const { pace } = paceAt(1, 1);
    const waits: (number | undefined)[] = [];
    for (let i = 0; i < 13; i++) waits.push(pace.wait('a'));
    expect(MAX_WAIT_MS).toBe(10_000);
    // 0, then one a second: 1 s to 10 s; the 12th and 13th turns are further off.
    expect(waits).toEqual([
      0,
      1000,
      2000,
      3000,
      4000,
      5000,
      6000,
      7000,
      8000,
      9000,
      10_000,
      undefined,
      undefined,
    ]);
  });

  it('should keep at most 10,000 peers, forgetting first those with no turn ahead', () => {
    const { pace, clock } = paceAt(1, 1);
    for (let i = 0; i < 10_000; i++) pace.wait(`old-${i}`);
    clock.now += 2_000;
    // Their turns have passed: a new peer past the bound makes them forgotten.
    pace.wait('new');
    expect(pace.wait('new')).toBe(1000);
    expect((pace as unknown as { due: Map<string, number> }).due.size).toBe(1);
  });
});
