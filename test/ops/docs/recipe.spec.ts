/**
 * docs/adding-a-collection.md, followed word for word in a copy of the project: each
 * `// src/tags/<file>` block written as shown, each command run as shown (its answer compared with
 * the block after it), in the order the page gives them. Then the new collection is among the
 * served ones, and the type check, the unit tests and every e2e suite on SQLite pass with it
 * beside the tests' fixture collections (EXTRA_COLLECTIONS): the whole suite follows COLLECTIONS,
 * so every generic check (the OpenAPI document and its examples on the demo data, CRUD, XML,
 * CSV, the pages) runs on `tags` too.
 *
 * The copy holds the working tree's files as git lists them (untracked ones included, ignored
 * ones not) and a link to this checkout's node_modules; it is removed afterwards.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FIXTURE_NAMES } from '../../fixtures';
import { Block, blocksOf, misfit } from './doc-blocks';
import { ROOT } from '../support/process';

/** A copy, a generated migration, then the whole suite once more: minutes, on a loaded machine. */
jest.setTimeout(30 * 60_000);

const PAGE = 'docs/adding-a-collection.md';
/** A recipe file's first line: `// src/tags/tags.resource.ts`. */
const RECIPE_FILE = /^\/\/ (src\/[\w./-]+)\n/;

/** The page's steps in order: files to write and commands (with the answer shown after each). */
type RecipeStep =
  | { kind: 'file'; path: string; body: string }
  | { kind: 'command'; command: string; expected?: Block };

function recipe(): RecipeStep[] {
  const blocks = blocksOf(PAGE);
  const steps: RecipeStep[] = [];
  blocks.forEach((block, i) => {
    const file = RECIPE_FILE.exec(block.body);
    if (block.lang === 'ts' && file) {
      steps.push({ kind: 'file', path: file[1], body: block.body.slice(file[0].length) });
    } else if (block.lang === 'sh') {
      const next = blocks[i + 1];
      const expected = next && next.lang === 'text' ? next : undefined;
      steps.push({ kind: 'command', command: block.body.trim(), expected });
    }
  });
  return steps;
}

/** The working tree's files, as git lists them (tracked and untracked, not ignored). */
function copyProject(to: string): void {
  const listed = spawnSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (listed.status !== 0) throw new Error(`git ls-files: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const from = join(ROOT, file);
    if (!existsSync(from)) continue; // deleted in the working tree
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(from, join(to, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(to, 'node_modules'), 'dir');
}

/** `command` by bash in `cwd`: its status and its output (stdout and stderr together). */
function run(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], {
      cwd,
      env: { ...process.env, ...env, CI: '', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running.add(child.pid!);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (status) => {
      running.delete(child.pid!);
      resolve({ status, output });
    });
  });
}

/** The process groups of commands still running: ended with the suite, whatever happens. */
const running = new Set<number>();
function endRunning(): void {
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
process.once('exit', endRunning);

describe('docs/adding-a-collection.md, followed word for word', () => {
  let copy: string;
  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'records-recipe-'));
    copyProject(copy);
  });
  afterAll(() => {
    endRunning();
    rmSync(copy, { recursive: true, force: true });
  });

  it('should write the files and run the commands in the order the page gives them', async () => {
    const steps = recipe();
    expect(steps.map((s) => (s.kind === 'file' ? s.path : s.command))).toEqual([
      'src/tags/tags.resource.ts',
      'src/tags/tags.demo.ts',
      'src/tags/index.ts',
      'npm run migration:generate -- src/tags',
    ]);
    for (const step of steps) {
      if (step.kind === 'file') {
        mkdirSync(dirname(join(copy, step.path)), { recursive: true });
        writeFileSync(join(copy, step.path), step.body);
        continue;
      }
      const { status, output } = await run(step.command, copy);
      expect([step.command, status, output]).toEqual([step.command, 0, output]);
      if (step.expected) expect(misfit(output, step.expected)).toBeUndefined();
    }
    const migrations = readdirSync(join(copy, 'src', 'tags')).filter((f) =>
      /^\d{13}-tags\.ts$/.test(f),
    );
    expect(migrations).toHaveLength(1);
    expect(readFileSync(join(copy, 'src', 'tags', migrations[0]), 'utf8')).toContain(
      "[['user_id', 'users', 'SET NULL']]",
    );
  });

  it('should serve tags among the collections, in the order of their paths', async () => {
    const { status, output } = await run(
      "node -r ts-node/register/transpile-only -e \"console.log(require('./src/collections').COLLECTIONS.map((c) => c.declaration.path).join(' '))\"",
      copy,
    );
    expect([status, output.trim()]).toEqual([
      0,
      '/api/demo/emails /api/demo/marbles /api/demo/phone_numbers /api/demo/tags /api/plain/movies',
    ]);
  });

  it('should pass the type check, the unit tests and every e2e suite with tags beside the fixtures', async () => {
    const types = await run(
      'node node_modules/typescript/bin/tsc --noEmit -p test/tsconfig.json',
      copy,
    );
    expect([types.status, types.output]).toEqual([0, '']);
    const report = join(copy, 'recipe-report.json');
    const suites = await run(
      `node node_modules/jest/bin/jest.js --selectProjects unit e2e --testPathIgnorePatterns /e2e/mysql/ --maxWorkers=2 --json --outputFile=${report}`,
      copy,
      { TEST_DATABASE: 'sqlite', EXTRA_COLLECTIONS: FIXTURE_NAMES.join(',') },
    );
    const result = existsSync(report)
      ? (JSON.parse(readFileSync(report, 'utf8')) as {
          numFailedTests: number;
          numPassedTests: number;
          testResults: { name: string; status: string; message: string }[];
        })
      : undefined;
    const failed = (result?.testResults ?? [])
      .filter((r) => r.status !== 'passed')
      .map((r) => `${r.name}: ${r.message.slice(0, 2000)}`);
    expect([suites.status, failed]).toEqual([0, []]);
    expect(result!.numFailedTests).toBe(0);
    expect(result!.numPassedTests).toBeGreaterThan(900);
  });
});
