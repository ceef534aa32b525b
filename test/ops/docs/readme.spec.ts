/**
 * The commands of the README and docs/, run as a person would paste them: every document with
 * commands, top to bottom, each command exactly as written (but for the addresses, below) by bash
 * in an empty directory of its own (a `cd` carries over to the next command), against one built
 * server started on a new SQLite database with the demo data, and each answer compared with the
 * block the document shows after it. How the blocks read: test/ops/docs/doc-blocks.ts.
 *
 * Run: every ```sh block of README.md (its Examples, the typed client's `npm install` of pinned
 * versions from the npm registry included, and the change feed's `curl -N` streams),
 * docs/examples.md, docs/safe-writes.md, docs/interface.md, docs/operations-api.md and docs/access-control.md (the
 * development issuer's walkthrough), and those of any document that gets some (the list below is
 * the only way out). The files a
 * document says to save (`// client.ts`) are saved in the directory as shown.
 * - `http://localhost:3000` is the server's address, its port a free one; `npm run dev:issuer` (the
 *   development issuer of docs/access-control.md) is run as a person runs it, in the clone, with
 *   DEV_ISSUER_PORT a free port that stands for its `http://localhost:9400`.
 * - `VAR=value … npm start` restarts the service with those variables on the same database; what
 *   `npm start` itself does (a build when the sources are newer, signals) is
 *   test/ops/deploy/npm-start.spec.ts's.
 * - A command ends with status 0, or 28 (curl's "operation timed out") where it sets
 *   `--max-time`: that is how a stream ends. A command followed by its answer prints nothing on
 *   stderr; one without (an `npm install`) may (npm's notices).
 *
 * Not run, each section with the reason (NOT_RUN; checked to exist): README "Set up",
 * docs/benchmark.md "How to run" and docs/operations.md "Backup and restore" below. That last is
 * the only document with `docker compose` command blocks (there is no Docker engine here):
 * test/ops/deploy/compose.spec.ts parses the compose files, and
 * test/ops/mysql/backup-restore.spec.ts runs the section's mariadb-dump and restore on the shared
 * MariaDB, its options read from the section.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUDIENCE } from '../../oidc/provider';
import { blocksOf, misfit, Step, stepsOf } from './doc-blocks';
import {
  freePort,
  ROOT,
  scratchDir,
  ServerProcess,
  sqliteUrl,
  startServer,
  waitFor,
} from '../support/process';
import { Run, Running, Terminal } from './terminal';

/** The sections whose commands are not run, and why. */
const NOT_RUN: Record<string, Record<string, string>> = {
  'README.md': {
    'Set up':
      "`npm ci` is a clone's whole install (minutes) and `npm test` the whole suite, this one " +
      'included; CI runs both on a fresh clone, and npm-start.spec.ts what `npm start` does',
  },
  'docs/adding-a-collection.md': {
    '4. The migration':
      'it writes into src/ of a project: recipe.spec.ts follows the whole page in a copy of this one',
  },
  'docs/benchmark.md': {
    'How to run':
      'a menu of benchmark runs, minutes of full load each, meant for a quiet machine; what they ' +
      'measured is the document',
  },
  'docs/operations.md': {
    'Backup and restore':
      '`docker compose exec` commands, and no container engine here: ' +
      'test/ops/mysql/backup-restore.spec.ts runs their mariadb-dump options and the restore on ' +
      'the shared MariaDB, and serves the restored database',
  },
};

const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const ADDRESS = 'http://localhost:3000';
/** The development issuer's address (scripts/dev-issuer.json's port). */
const ISSUER_ADDRESS = 'http://localhost:9400';
const CURL_TIMED_OUT = 28;
/** One command (an `npm install` on a cold cache), and a whole document. */
const COMMAND_TIMEOUT = 300_000;
const DOCUMENT_TIMEOUT = 900_000;

const RUN = DOCUMENTS.filter((file) =>
  stepsOf(file, Object.keys(NOT_RUN[file] ?? {})).some((s) => s.kind === 'command'),
);

describe('the command blocks of the README and docs/', () => {
  it.each(DOCUMENTS)('should say of every block of %s what it is', (file) => {
    const unnamed = blocksOf(file)
      .filter((b) => b.lang === '')
      .map((b) => `${file}:${b.line}`);
    expect(unnamed).toEqual([]);
  });

  it('should leave out only sections that exist and hold commands', () => {
    const left = Object.entries(NOT_RUN).flatMap(([file, sections]) =>
      Object.keys(sections).map((section) => [
        file,
        section,
        blocksOf(file).some((b) => b.section === section && b.lang === 'sh'),
      ]),
    );
    expect(left).toEqual(left.map(([file, section]) => [file, section, true]));
  });

  it('should run the documents whose examples the README and docs promise', () => {
    expect(RUN).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/examples.md',
        'docs/safe-writes.md',
        'docs/interface.md',
        'docs/access-control.md',
        'docs/operations-api.md',
      ]),
    );
  });
});

async function demoServer(database: string, env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServer({
    DATABASE_URL: database,
    DEMO_DATA: 'true',
    LOG_LEVEL: 'warn',
    ...env,
  });
  await server.waitReady();
  return server;
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.waitExit();
}

/**
 * `npm run dev:issuer` as a person runs it, in the clone, on `port` (DEV_ISSUER_PORT): once it
 * says it listens, its output so far. In a process group of its own, ended with it by `stop`.
 */
class DevIssuer {
  private constructor(
    private readonly child: ChildProcess,
    readonly output: () => string,
  ) {}

  static async start(port: number): Promise<DevIssuer> {
    const child = spawn('npm', ['run', 'dev:issuer'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DEV_ISSUER_PORT: String(port),
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const issuer = new DevIssuer(child, () => stdout);
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`npm run dev:issuer exited: ${stderr}`);
        return stdout.includes('Ctrl-C stops it.');
      },
      'the development issuer',
      60_000,
    );
    return issuer;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    process.kill(-this.child.pid!, 'SIGTERM');
    await exited;
  }
}

describe.each(RUN)('the commands of %s', (file) => {
  let issuer: DevIssuer | undefined;
  let issuerAddress: string | undefined;
  afterAll(() => issuer?.stop());

  it(
    'should answer each as the document shows, top to bottom, on one fresh demo database',
    async () => {
      const steps = stepsOf(file, Object.keys(NOT_RUN[file] ?? {}));
      const database = sqliteUrl();
      let server = await demoServer(database, {});
      const here = (text: string) => {
        const local = text.replaceAll(ADDRESS, `http://localhost:${server.port}`);
        return issuerAddress ? local.replaceAll(ISSUER_ADDRESS, issuerAddress) : local;
      };
      const answers = (step: Extract<Step, { kind: 'command' }>, run: Run) => {
        const at = `${file}:${step.line}`;
        const ended =
          run.status === 0 ||
          (run.status === CURL_TIMED_OUT && step.command.includes('--max-time'));
        expect({
          at,
          status: ended ? 'ended' : run.status,
          stderr: step.expected || !ended ? run.stderr : '',
        }).toEqual({ at, status: 'ended', stderr: '' });
        if (!step.expected) return;
        const expected = { ...step.expected, body: here(step.expected.body) };
        expect({ at, misfit: misfit(run.stdout, expected) }).toEqual({ at, misfit: undefined });
      };

      const terminal = new Terminal(scratchDir('records-docs-'), COMMAND_TIMEOUT);
      const streams: [Extract<Step, { kind: 'command' }>, Running][] = [];
      try {
        for (const step of steps) {
          if (step.kind === 'file') {
            writeFileSync(join(terminal.cwd, step.name), here(step.body));
          } else if (step.kind === 'issuer') {
            const port = await freePort();
            issuerAddress = `http://localhost:${port}`;
            issuer = await DevIssuer.start(port);
            if (step.expected) {
              const at = `${file}:${step.line}`;
              const expected = { ...step.expected, body: here(step.expected.body) };
              expect({ at, misfit: misfit(issuer.output(), expected) }).toEqual({
                at,
                misfit: undefined,
              });
            }
          } else if (step.kind === 'start') {
            expect(step.env.AUTH_AUDIENCE ?? AUDIENCE).toBe(AUDIENCE);
            await stop(server);
            const env = Object.fromEntries(Object.entries(step.env).map(([k, v]) => [k, here(v)]));
            server = await demoServer(database, env);
          } else if (step.background) {
            const running = terminal.start(here(step.command));
            await running.started;
            streams.push([step, running]);
          } else {
            answers(step, await terminal.run(here(step.command)));
            for (const [stream, running] of streams.splice(0)) answers(stream, await running.done);
          }
        }
        for (const [stream, running] of streams.splice(0)) answers(stream, await running.done);
      } finally {
        await stop(server);
      }
    },
    DOCUMENT_TIMEOUT,
  );
});
