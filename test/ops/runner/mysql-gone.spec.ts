/**
 * A MySQL server that goes away while a stage uses it stops the run at once, with one line
 * naming the server, instead of every remaining test failing on it (scripts/test.js watches the
 * server while the stage runs). The run's MySQL here is a server of this test's own
 * (scripts/mariadb-pair.js), killed while the e2e suites run on it.
 *
 * Needs mariadbd and mariadb-install-db.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MariaDbServer, missingBinaries, startServer } from '../../../scripts/mariadb-pair';
import { waitFor } from '../support/process';
import { Run, alive, existsSync } from './run';

const lacking = missingBinaries();
if (lacking.length) throw new Error(`not installed: ${lacking.join(', ')}`);

let root: string;
let server: MariaDbServer;
let run: Run | undefined;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'records-runner-mysql-'));
  server = await startServer(root);
  // The suites' user, over TCP as TEST_MYSQL_URL names it.
  await server.query("CREATE USER 'tester'@'127.0.0.1'");
  await server.query("GRANT ALL ON *.* TO 'tester'@'127.0.0.1'");
});

afterAll(async () => {
  run?.cleanUp();
  await server?.kill().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

it('should stop the run with one line naming the server when MySQL goes away mid-stage', async () => {
  const serverUrl = `mysql://tester@127.0.0.1:${server.port}/`;
  run = new Run(
    {
      TEST_STAGES: 'e2e-mysql',
      TEST_MYSQL_URL: `${serverUrl}records_collections_test`,
    },
    // Suites enough to be running when the server goes.
    ['/read/', '/write/', '/http/'],
  );
  await run.waitForOutput('=== e2e on MySQL ===');
  await run.waitForOutput(/^PASS /m);
  const seen = run.processes();
  const folder = run.folder;
  const killedAt = Date.now();
  await server.kill();
  const exit = await run.exited;
  // Noticed within seconds: a query a second, three failed in a row.
  expect(Date.now() - killedAt).toBeLessThan(20_000);
  expect(exit.code).toBe(1);
  const lines = run.stderr.split('\n').filter((line) => line.includes('went away'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    new RegExp(
      `^The MySQL server at ${serverUrl.replace(/[.]/g, '\\.')} went away during e2e on MySQL \\(.+\\): the run stops\\.$`,
    ),
  );
  expect(run.stdout).not.toContain('=== summary ===');
  await waitFor(
    () => seen.every((p) => !alive(p.pid)) && !existsSync(folder),
    "the run's processes and folder gone",
    30_000,
  );
});
