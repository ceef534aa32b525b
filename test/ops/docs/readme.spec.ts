/**
 * The commands of the README and docs/, run as a person would paste them: every document with
 * commands, top to bottom, each command exactly as written (but for the addresses, below) by bash
 * in an empty directory of its own (a `cd` carries over to the next command), against one built
 * server started on a new SQLite database with the demo data, and each answer compared with the
 * block the document shows after it. How the blocks read: test/ops/docs/doc-blocks.ts.
 *
 * Run: every ```sh block of README.md (from its Examples to its Access control, the typed
 * client's `npm install` of pinned versions from the npm registry included, and the change
 * feed's `curl -N` streams), docs/examples.md, docs/safe-writes.md and docs/interface.md, and
 * those of any document that gets some (the list below is the only way out). The files a
 * document says to save (`// client.ts`) are saved in the directory as shown.
 * - `http://localhost:3000` is the server's address, its port a free one; `http://localhost:8080`,
 *   the README's issuer, is a real OpenID Connect provider (test/oidc/provider.ts) with the
 *   README's client, started for a document that names it.
 * - `VAR=value … npm start` restarts the service with those variables on the same database; what
 *   `npm start` itself does (a build when the sources are newer, signals) is
 *   test/ops/deploy/npm-start.spec.ts's.
 * - A command ends with status 0, or 28 (curl's "operation timed out") where it sets
 *   `--max-time`: that is how a stream ends. A command followed by its answer prints nothing on
 *   stderr; one without (an `npm install`) may (npm's notices).
 *
 * Not run, each section with the reason (NOT_RUN; checked to exist): README "Set up" and
 * docs/benchmark.md "How to run" below. No document holds a `docker compose` command block: it is
 * named in the README's prose only (there is no Docker engine here); test/ops/deploy/compose.spec.ts
 * parses the compose files and runs their services' start sequence without Docker.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUDIENCE, OidcProvider } from '../../oidc/provider';
import { blocksOf, misfit, Step, stepsOf } from './doc-blocks';
import { ROOT, scratchDir, ServerProcess, sqliteUrl, startServer } from '../support/process';
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
};

const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const ADDRESS = 'http://localhost:3000';
const ISSUER_ADDRESS = 'http://localhost:8080';
/** The README's client, its secret and what it may ask for; the issuer's scopes. */
const README_CLIENT = {
  id: 'marbles-bot',
  secret: 'marbles-bot-secret',
  scopes: ['marbles:write'],
};
const README_SCOPES = [
  'records:read',
  'records:write',
  'marbles:read',
  'marbles:write',
  'emails:write',
];
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

describe.each(RUN)('the commands of %s', (file) => {
  let provider: OidcProvider | undefined;
  afterAll(() => provider?.stop());

  it(
    'should answer each as the document shows, top to bottom, on one fresh demo database',
    async () => {
      const steps = stepsOf(file, Object.keys(NOT_RUN[file] ?? {}));
      if (readFileSync(join(ROOT, file), 'utf8').includes(ISSUER_ADDRESS))
        provider = await OidcProvider.start(README_SCOPES, [README_CLIENT]);
      const database = sqliteUrl();
      let server = await demoServer(database, {});
      const here = (text: string) => {
        const local = text.replaceAll(ADDRESS, `http://localhost:${server.port}`);
        return provider ? local.replaceAll(ISSUER_ADDRESS, provider.issuer) : local;
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
