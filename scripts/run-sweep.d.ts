/** Types of run-sweep.js (a CommonJS script, also run as the runner's guard). */
export const RUN_VARIABLE: string;
/** The folder of the run this process belongs to (RECORDS_TEST_RUN), or undefined. */
export function currentRun(): string | undefined;
export function recordGroup(pgid: number | undefined): void;
export function forgetGroup(pgid: number | undefined): void;
/** The pids whose environment names the run's folder, this process excepted. */
export function processesOf(run: string): number[];
/** Kills the run's processes and groups, removes its folder; the pids killed. */
export function sweep(run: string, options?: { except?: number[] }): number[];
