/**
 * A stopped run leaves nothing behind (scripts/test.js, scripts/run-sweep.js): a run of the full
 * command's Galera stage (TEST_SCOPE=all TEST_STAGES=e2e-galera, one e2e suite: the three nodes
 * of its own cluster, in process groups of their own, and Jest running the app) is
 * stopped while its suite runs, by SIGINT (Ctrl-C), SIGTERM, and SIGKILL of the runner itself
 * (the guard sweeps then); afterwards no process of the run is left (none whose environment or
 * command line names its folder, none of the pids seen during it) and the folder is gone.
 *
 * Needs mariadb-server, galera-4 and rsync, as the Galera stage does. Ports: RUNNER_GALERA_PORT_BASE
 * (24360) to +11, apart from the other suites' clusters.
 */
import { missing } from '../../../scripts/galera-cluster';
import { waitFor } from '../support/process';
import { Run, alive, existsSync, processesNaming } from './run';

const PORT_BASE = process.env.RUNNER_GALERA_PORT_BASE ?? '24360';
/** The cluster's start and a Jest worker's, on a loaded machine. */
const RUN_TIMEOUT = 400_000;

const lacking = missing();
if (lacking.length) throw new Error(`not installed: ${lacking.join(', ')}`);

let run: Run | undefined;
afterEach(() => run?.cleanUp());

/** A Galera stage of the full command, running one suite, stopped once its Jest runs; what is left. */
async function stopInGaleraStage(signal: NodeJS.Signals): Promise<void> {
  run = new Run(
    { TEST_SCOPE: 'all', TEST_STAGES: 'e2e-galera', TEST_GALERA_PORT_BASE: PORT_BASE },
    ['read/shapes.e2e-spec'],
  );
  await run.waitForOutput('--- the cluster started in');
  await run.waitForOutput('=== e2e on a Galera cluster ===');
  const folder = run.folder;
  // Inside the stage: the three nodes and Jest (one suite: Jest runs it in its own process).
  // Node names its main thread: the command is `node` (Node 20) or `node-MainThread` (Node 26).
  const isNode = (command: string) => /^node(-|$)/.test(command);
  await waitFor(() => run!.processes().some((p) => isNode(p.command)), 'Jest running', 60_000);
  const seen = run.processes();
  expect(seen.filter((p) => p.command === 'mariadbd')).toHaveLength(3);

  run.child.kill(signal);
  const exit = await run.exited;
  if (signal === 'SIGKILL') expect(exit.signal).toBe('SIGKILL');
  else {
    expect(exit.code).toBe(signal === 'SIGINT' ? 130 : 143);
    expect(run.stderr).toContain(`${signal}: stopping the run (e2e on a Galera cluster)`);
  }
  // The runner sweeps before it exits; killed outright, its guard does within a moment. A
  // process started just before the kill (a worker Jest was spawning) is swept too, and may take
  // a moment more to end on a slow machine: every process naming the folder must be gone.
  await waitFor(
    () =>
      seen.every((p) => !alive(p.pid)) &&
      !existsSync(folder) &&
      processesNaming(folder).length === 0,
    `the run's processes and folder gone after ${signal}`,
    30_000,
  );
  expect(processesNaming(folder)).toEqual([]);
}

describe('a run stopped inside its Galera stage', () => {
  it(
    'should leave no process and no folder after Ctrl-C (SIGINT)',
    () => stopInGaleraStage('SIGINT'),
    RUN_TIMEOUT,
  );

  it(
    'should leave no process and no folder after SIGTERM',
    () => stopInGaleraStage('SIGTERM'),
    RUN_TIMEOUT,
  );

  it(
    'should leave no process and no folder when the runner is killed (SIGKILL)',
    () => stopInGaleraStage('SIGKILL'),
    RUN_TIMEOUT,
  );
});
