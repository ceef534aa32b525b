/**
 * `npm run seed` (node dist/seed.js) as a process, and the ids a database hands out:
 * shared by the SQLite suite (seed.spec.ts) and the MySQL one (mysql/seed-reset.spec.ts).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { assertBuilt, ROOT, scratchDir, startServer } from '../support/process';

export const SEED = join(ROOT, 'dist', 'seed.js');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the seed script with `args` and `DATABASE_URL`, to its exit (at most `timeoutMs`). */
export function seed(args: string[], databaseUrl?: string, timeoutMs = 120_000): Promise<Run> {
  assertBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SEED, ...args], {
      cwd: scratchDir('records-ops-seed-'),
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`seed ${args.join(' ')}: no exit within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A new record for each collection, different in each `round`. */
const NEW_RECORDS: [path: string, body: (round: number) => object][] = [
  ['/api/demo/marbles', (round) => ({ name: `ops seed ${round}` })],
  ['/api/demo/emails', (round) => ({ email: `ops-seed-${round}@example.com`, user_id: 1 })],
  ['/api/demo/phone_numbers', (round) => ({ number: `+1 555 01${round}9 seed`, user_id: 1 })],
  ['/api/plain/movies', (round) => ({ name: `Ops Seed ${round}` })],
];

/**
 * Starts the service on `databaseUrl` (no demo data of its own), creates one record in each
 * collection `times` times, and returns the ids of the first round, by path.
 */
export async function createRecords(
  databaseUrl: string,
  times = 1,
): Promise<Record<string, number>> {
  const server = await startServer({ DATABASE_URL: databaseUrl, DEMO_DATA: 'false' });
  try {
    await server.waitReady();
    const ids: Record<string, number> = {};
    for (let round = 0; round < times; round++) {
      for (const [path, body] of NEW_RECORDS) {
        const res = await fetch(server.url(path), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body(round)),
        });
        const created = (await res.json()) as { id: number };
        if (res.status !== 201)
          throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(created)}`);
        if (round === 0) ids[path] = created.id;
      }
    }
    return ids;
  } finally {
    server.child.kill('SIGTERM');
    await server.waitExit();
  }
}

/** The ids of new records on a database that was seeded fresh. */
export const FRESH_IDS = {
  '/api/demo/marbles': 121,
  '/api/demo/emails': 151,
  '/api/demo/phone_numbers': 101,
  '/api/plain/movies': 31,
};
