/**
 * `npm run seed` (the compiled dist/seed.js): --help, bad options, and --reset giving
 * the ids of a fresh database on SQLite (test/ops/mysql/seed-reset.spec.ts does it on MySQL).
 */
import { sqliteUrl } from '../support/process';
import { createRecords, FRESH_IDS, seed } from './seed-ids';

// Every test here runs the seed script or the server: none may fail on Jest's 5 s default.
describe('npm run seed', () => {
  it('should print its options on --help and -h and exit 0 without touching a database', async () => {
    for (const flag of ['--help', '-h']) {
      const run = await seed([flag], 'mysql://nobody@127.0.0.1:1/none');
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(/^Usage: npm run seed -- \[options\]\n/);
      for (const option of ['--reset', '--marbles N', '-h, --help', 'DATABASE_URL'])
        expect(run.stdout).toContain(option);
    }
  });

  it('should refuse an unknown option in one line that points to --help, exit 1', async () => {
    const run = await seed(['--rest'], sqliteUrl());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toBe("seed: Unknown option '--rest' (see npm run seed -- --help)");
  });

  it('should refuse a database that has data without --reset', async () => {
    const database = sqliteUrl();
    expect((await seed([], database)).code).toBe(0);
    const again = await seed([], database);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('The database already has data; run with --reset');
  });

  it('should give the ids of a fresh database after --reset on SQLite (the next POST gets 121 marbles, not 125)', async () => {
    const fresh = sqliteUrl();
    expect((await seed([], fresh)).code).toBe(0);
    expect(await createRecords(fresh)).toEqual(FRESH_IDS);

    const used = sqliteUrl();
    expect((await seed([], used)).code).toBe(0);
    await createRecords(used, 4);
    const reset = await seed(['--reset'], used);
    expect(reset.code).toBe(0);
    expect(await createRecords(used)).toEqual(FRESH_IDS);
  });
});
