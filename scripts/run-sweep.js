#!/usr/bin/env node
/**
 * What a test run leaves must go with it: every process it started (servers, mariadbd, Redis,
 * nginx, Chromium) and every temporary file. scripts/test.js gives each run a folder,
 * `<tmp>/records-run-<pid>`, names it to everything it starts in RECORDS_TEST_RUN, and points
 * TMPDIR into it, so temporary folders land there. This module finds the run's processes and
 * removes them with the folder:
 *
 * - each process started during the run inherits RECORDS_TEST_RUN; on Linux /proc shows a
 *   process's environment, so every process holding the run's folder there is the run's, in
 *   whatever process group it put itself;
 * - a process started in a group of its own (the runner's stages, the Galera nodes of
 *   scripts/galera-cluster.js) is also recorded by its group in the folder (`groups/<pgid>`,
 *   `recordGroup`), for systems without /proc;
 *
 * and `sweep` kills both (SIGKILL: what is swept is not asked twice) and removes the folder.
 *
 * The runner sweeps when it ends, and when it is interrupted (SIGINT, SIGTERM). For a runner
 * killed outright (SIGKILL, no handler runs), it starts this file as a guard:
 *
 *   node scripts/run-sweep.js guard <runner pid> <run folder>
 *
 * a detached process outside the run (no RECORDS_TEST_RUN) that looks every 300 ms whether the
 * runner still lives and, once it does not, sweeps its folder and exits. It exits as well when
 * the folder is gone (the runner swept it), and the runner ends it when it ends.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const RUN_VARIABLE = 'RECORDS_TEST_RUN';

/** The run this process belongs to: its folder, or undefined outside a run. */
function currentRun() {
  return process.env[RUN_VARIABLE] || undefined;
}

/** Records the process group `pgid` (a detached child's pid) in the current run's folder. */
function recordGroup(pgid) {
  const run = currentRun();
  if (!run || !pgid) return;
  try {
    fs.mkdirSync(path.join(run, 'groups'), { recursive: true });
    fs.writeFileSync(path.join(run, 'groups', String(pgid)), '');
  } catch {
    // The folder is being swept: the group goes with it.
  }
}

/** Forgets a group recorded by `recordGroup`, once it has ended. */
function forgetGroup(pgid) {
  const run = currentRun();
  if (!run || !pgid) return;
  fs.rmSync(path.join(run, 'groups', String(pgid)), { force: true });
}

/** Whether this system shows processes' environments (/proc, Linux). */
function hasProc() {
  return fs.existsSync('/proc/self/environ');
}

/** Whether the environment of process `pid` names the run `run`; undefined when unreadable. */
function belongsTo(pid, run) {
  try {
    return fs
      .readFileSync(`/proc/${pid}/environ`, 'latin1')
      .split('\0')
      .includes(`${RUN_VARIABLE}=${run}`);
  } catch {
    return undefined;
  }
}

/** The pids of the run's processes (their environment names its folder), this one excepted. */
function processesOf(run) {
  if (!hasProc()) return [];
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid && belongsTo(pid, run));
}

/** The groups recorded in the run's folder. */
function groupsOf(run) {
  try {
    return fs
      .readdirSync(path.join(run, 'groups'))
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

function kill(pid, signal) {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Blocks for `ms` without busy-waiting (a sweep runs in exit handlers too). */
function pause(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Kills every process of the run (its recorded groups, and with /proc every process whose
 * environment names it), again until none is left (a dying parent may have started a child a
 * moment before), then removes the folder. `except`: pids to spare (the runner itself).
 * Synchronous, so that it may run in an exit or signal handler. Returns the pids it killed.
 */
function sweep(run, { except = [] } = {}) {
  const killed = new Set();
  for (let round = 0; round < 50; round++) {
    let found = 0;
    for (const pgid of groupsOf(run)) {
      // A recorded group whose leader lives on under another run's name is not this run's (its
      // pid was reused); one whose leader is gone may still hold members.
      if (hasProc() && belongsTo(pgid, run) === false) continue;
      if (kill(-pgid, 'SIGKILL')) {
        found++;
        killed.add(pgid);
      }
    }
    for (const pid of processesOf(run)) {
      if (except.includes(pid)) continue;
      if (kill(pid, 'SIGKILL')) {
        found++;
        killed.add(pid);
      }
    }
    if (found === 0) break;
    pause(100);
  }
  fs.rmSync(run, { recursive: true, force: true });
  return [...killed];
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** The guard's loop (see the top of this file). */
function guard(runnerPid, run) {
  const timer = setInterval(() => {
    if (!fs.existsSync(run)) {
      clearInterval(timer);
      return;
    }
    if (alive(runnerPid)) return;
    clearInterval(timer);
    sweep(run);
  }, 300);
  // Told to stop by the runner (it swept, or sweeps, itself): goes quietly. (In a session of its
  // own, it gets no Ctrl-C or hang-up of the terminal.)
  process.on('SIGTERM', () => process.exit(0));
}

module.exports = {
  RUN_VARIABLE,
  currentRun,
  recordGroup,
  forgetGroup,
  processesOf,
  sweep,
};

if (require.main === module) {
  const [command, pid, run] = process.argv.slice(2);
  if (command !== 'guard' || !/^\d+$/.test(pid ?? '') || !run) {
    console.error('usage: node scripts/run-sweep.js guard <runner pid> <run folder>');
    process.exit(2);
  }
  guard(Number(pid), run);
}
