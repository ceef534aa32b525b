/**
 * Idempotency-Key across two instances of the service on one database: concurrent requests with
 * one key sent to both write once (the others replay it or get 409), and a toggle flips once.
 */
import { TestApp, testDatabase, useApp } from '../support/harness';
import { REPLAYED, SEED, expectOneWrite } from './idempotency';

describe('write: Idempotency-Key across two instances of the service', () => {
  const t = useApp();
  const second = new TestApp();
  beforeAll(async () => {
    const database =
      t.dialect === 'sqlite'
        ? { type: 'sqlite' as const, path: t.dataSource.options.database as string }
        : testDatabase();
    await second.start({ database });
    await t.insertAll(SEED);
  }, 60_000);
  afterAll(() => second.close(), 60_000);

  it('should write once for concurrent requests with one key sent to both instances', async () => {
    for (let round = 0; round < 3; round++) {
      const key = `two-instances-${round}`;
      const body = { name: `Twin ${round}` };
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? t : second)
            .http()
            .post('/api/demo/marbles')
            .set('Idempotency-Key', key)
            .send(body),
        ),
      );
      expectOneWrite(responses);
      const rows = await t.query('SELECT id FROM marbles WHERE name = ?', [body.name]);
      expect(rows).toHaveLength(1);
      const replay = await second
        .http()
        .post('/api/demo/marbles')
        .set('Idempotency-Key', key)
        .send(body);
      expect(replay.headers[REPLAYED]).toBe('true');
    }
  }, 60_000);

  it('should give one flip for concurrent toggles with one key on both instances', async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? t : second)
          .http()
          .patch('/api/demo/marbles/7/toggle_is_discounted')
          .set('Idempotency-Key', 'twin-toggle'),
      ),
    );
    const done = responses.filter((r) => r.status === 200);
    expect(done.length).toBeGreaterThan(0);
    for (const res of done) expect(res.body).toEqual({ message: 'Is discounted toggled to true.' });
    expect(responses.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    expect((await t.stored('marbles'))[0].is_discounted).toBe(true);
  }, 60_000);
});
