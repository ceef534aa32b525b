/**
 * A run of scripts/test.js as the suites here drive it: started with the environment given (a
 * stage or two and a suite or two: TEST_STAGES and Jest's arguments), its output collected, its
 * folder (the first line names it) and its processes (those whose environment names the folder,
 * scripts/run-sweep.js) found while it runs.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, waitFor } from '../support/process';
import { processesOf, sweep } from '../../../scripts/run-sweep';

export class Run {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(env: Record<string, string>, args: string[]) {
    // The run's own scope, stages, databases and verdicts, not those of the run this test runs
    // in (`npm run test:all` sets TEST_SCOPE=all for its stages).
    const childEnv: NodeJS.ProcessEnv = { ...process.env };
    for (const name of [
      'CI',
      'REQUIRE_MYSQL',
      'TEST_SCOPE',
      'TEST_STAGES',
      'TEST_MYSQL_URL',
      'TEST_DATABASE',
      'EXTRA_COLLECTIONS',
    ])
      delete childEnv[name];
    Object.assign(childEnv, env);
    this.child = spawn(process.execPath, [join(ROOT, 'scripts', 'test.js'), ...args], {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk) => (this.stdout += chunk));
    this.child.stderr!.on('data', (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code, signal) => resolve({ code, signal })),
    );
  }

  /** The run's folder, from its first line. */
  get folder(): string {
    const found = /^This run's folder \(.*\): (\S+)$/m.exec(this.stdout);
    if (!found) throw new Error(`the run named no folder:\n${this.stdout}${this.stderr}`);
    return found[1];
  }

  /** Waits until the output (stdout and stderr) holds `text`. */
  async waitForOutput(text: string | RegExp, timeoutMs = 240_000): Promise<void> {
    const holds = () =>
      typeof text === 'string'
        ? (this.stdout + this.stderr).includes(text)
        : text.test(this.stdout + this.stderr);
    await waitFor(
      () => holds() || this.child.exitCode !== null,
      `the run's output to hold ${text}`,
      timeoutMs,
    );
    if (!holds()) throw new Error(`the run ended before ${text}:\n${this.stdout}\n${this.stderr}`);
  }

  /** The run's processes now: pid and command name. */
  processes(): { pid: number; command: string }[] {
    return processesOf(this.folder).map((pid) => ({ pid, command: commandOf(pid) }));
  }

  /** Whatever a failed test leaves of the run is swept (the guard would, once the run is gone). */
  cleanUp(): void {
    this.child.kill('SIGKILL');
    try {
      sweep(this.folder);
    } catch {
      // No folder named yet.
    }
  }
}

/** A process's command name (/proc/<pid>/comm), or '' once it is gone. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Processes whose command line names `text` (a run's folder: the datadir of a node in it). */
export function processesNaming(text: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      if (pid === process.pid) return false;
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(text);
      } catch {
        return false;
      }
    });
}

/** Whether process `pid` still runs. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export { existsSync };
