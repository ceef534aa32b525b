/**
 * The examples of the README and docs/, run: every command of the README's Examples and Safe
 * writes sections and of the example sections of docs/examples.md and docs/safe-writes.md, and
 * the typed client of "The OpenAPI document and typed clients", against the built server started
 * afresh on a new SQLite database with the demo data, each section on a server of its own.
 *
 * The convention the README keeps: each ```sh block is followed by a block of what it answers.
 * An ```http block (for `curl -si`) holds the status line, the headers that matter (each must
 * be in the answer with that value) and, after a blank line, the body; any other block holds
 * the whole output. `…` stands for any text (times, fields left out); `http://localhost:3000` is
 * the server's address. The typed client's ```ts block is compiled with the README's
 * tsconfig.json block against types generated from the server's document, run, and its output
 * compared with the ```text block after it.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUDIENCE, OidcProvider } from '../oidc/provider';
import { ROOT, ServerProcess, sqliteUrl, startServer } from './process';

/**
 * The documents whose examples run, each section (`## heading`) with its commands; `issuer`:
 * the section talks to an OpenID Connect issuer at ISSUER_ADDRESS (a real one, started here with
 * the client it names) and the server runs with the settings it gives.
 */
const SECTIONS: [file: string, heading: string, issuer?: 'issuer'][] = [
  ['README.md', 'Examples'],
  ['README.md', 'Safe writes'],
  ['README.md', 'Access control and rate limits', 'issuer'],
  ['docs/examples.md', 'Reading'],
  ['docs/examples.md', 'Writing'],
  ['docs/safe-writes.md', 'Examples'],
];
const ADDRESS = 'http://localhost:3000';
/** Where the README's issuer stands. */
const ISSUER_ADDRESS = 'http://localhost:8080';
/** The README's client, its secret and what it may ask for; its scopes, and the server's. */
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
const README_AUTH_ENV = {
  AUTH_AUDIENCE: AUDIENCE,
  RATE_LIMIT: '600/60s',
  RATE_LIMIT_WRITES: '60/60s',
};

interface Block {
  lang: string;
  body: string;
}

/** The fenced blocks of the section under `## heading` of `file`. */
function blocksOf(file: string, heading: string): Block[] {
  const document = readFileSync(join(ROOT, file), 'utf8');
  const start = document.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`${file} has no section "${heading}"`);
  const end = document.indexOf('\n## ', start + 1);
  const text = document.slice(start, end === -1 ? undefined : end);
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1],
    body: m[2],
  }));
}

/** Each command block with the block of what it answers. */
function examples(file: string, heading: string): { command: string; expected: Block }[] {
  const blocks = blocksOf(file, heading);
  const pairs: { command: string; expected: Block }[] = [];
  blocks.forEach((block, i) => {
    if (block.lang !== 'sh') return;
    const next = blocks[i + 1];
    if (!next || next.lang === 'sh') throw new Error(`no answer after: ${block.body}`);
    pairs.push({ command: block.body, expected: next });
  });
  return pairs;
}

/** `text` as a pattern: `…` matches anything, the rest literally. */
function pattern(text: string): RegExp {
  const parts = text.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*?')}$`);
}

/** Compares curl's output with the README's block; undefined when it fits, else why not. */
function misfit(actual: string, expected: Block): string | undefined {
  if (expected.lang !== 'http') {
    return pattern(expected.body.trimEnd()).test(actual.trimEnd())
      ? undefined
      : `the output is\n${actual}`;
  }
  const split = actual.indexOf('\r\n\r\n');
  const [head, body] = [actual.slice(0, split), actual.slice(split + 4)];
  const [status, ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((l) => [
      l.slice(0, l.indexOf(':')).toLowerCase(),
      l.slice(l.indexOf(':') + 1).trim(),
    ]),
  );
  const at = expected.body.indexOf('\n\n');
  const [wantHead, wantBody] =
    at === -1 ? [expected.body, ''] : [expected.body.slice(0, at), expected.body.slice(at + 2)];
  const [wantStatus, ...wantLines] = wantHead.trimEnd().split('\n');
  if (status !== wantStatus) return `the status line is ${status}\n${actual}`;
  for (const line of wantLines) {
    const name = line.slice(0, line.indexOf(':')).toLowerCase();
    const value = line.slice(line.indexOf(':') + 1).trim();
    if (!pattern(value).test(headers.get(name) ?? '')) return `${line} is not in\n${head}`;
  }
  return pattern(wantBody.trimEnd()).test(body.trimEnd()) ? undefined : `the body is\n${body}`;
}

async function demoServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServer({
    DATABASE_URL: sqliteUrl(),
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

describe.each(SECTIONS)('the examples of %s, section "%s"', (file, heading, issuer) => {
  let provider: OidcProvider | undefined;
  afterAll(() => provider?.stop());

  it('should answer every command as the document shows, on a fresh demo database', async () => {
    const pairs = examples(file, heading);
    expect(pairs.length).toBeGreaterThan(0);
    if (issuer) provider = await OidcProvider.start(README_SCOPES, [README_CLIENT]);
    const server = await demoServer(
      provider ? { ...README_AUTH_ENV, AUTH_ISSUER: provider.issuer } : {},
    );
    const base = `http://localhost:${server.port}`;
    const addresses = (text: string) =>
      provider
        ? text.replaceAll(ADDRESS, base).replaceAll(ISSUER_ADDRESS, provider.issuer)
        : text.replaceAll(ADDRESS, base);
    try {
      for (const { command, expected } of pairs) {
        const run = spawnSync('bash', ['-c', addresses(command)], {
          encoding: 'utf8',
          timeout: 30_000,
        });
        expect({ command, status: run.status, stderr: run.stderr }).toEqual({
          command,
          status: 0,
          stderr: '',
        });
        const wanted = { ...expected, body: addresses(expected.body) };
        expect({ command, misfit: misfit(run.stdout, wanted) }).toEqual({
          command,
          misfit: undefined,
        });
      }
    } finally {
      await stop(server);
    }
  });
});

describe('the README typed client', () => {
  const dir = join(ROOT, 'test-output', `readme-client-${randomBytes(4).toString('hex')}`);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should compile with tsc --strict and the README tsconfig, and print what the README shows', async () => {
    const blocks = blocksOf('README.md', 'The OpenAPI document and typed clients');
    const tsconfig = blocks.find((b) => b.lang === 'json');
    const at = blocks.findIndex((b) => b.lang === 'ts');
    const [client, output] = [blocks[at], blocks[at + 1]];
    expect([tsconfig !== undefined, client?.lang, output?.lang]).toEqual([true, 'ts', 'text']);
    expect(JSON.parse(tsconfig!.body).compilerOptions.strict).toBe(true);

    const server = await demoServer();
    const base = `http://localhost:${server.port}`;
    try {
      mkdirSync(dir, { recursive: true });
      const doc = await (await fetch(`${base}/api/openapi.json`)).text();
      writeFileSync(join(dir, 'openapi.json'), doc);
      const generate = spawnSync(
        process.execPath,
        [
          join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
          join(dir, 'openapi.json'),
          '-o',
          join(dir, 'openapi.d.ts'),
          '--default-non-nullable=false',
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
      expect({ status: generate.status, stderr: generate.status ? generate.stderr : '' }).toEqual({
        status: 0,
        stderr: '',
      });
      writeFileSync(join(dir, 'tsconfig.json'), tsconfig!.body);
      writeFileSync(join(dir, 'client.ts'), client.body.replaceAll(ADDRESS, base));
      const tsc = spawnSync(
        process.execPath,
        [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir],
        { encoding: 'utf8', timeout: 60_000 },
      );
      expect({ status: tsc.status, out: tsc.stdout }).toEqual({ status: 0, out: '' });
      const run = spawnSync(process.execPath, [join(dir, 'client.js')], {
        encoding: 'utf8',
        timeout: 30_000,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
      expect(run.stdout.trimEnd()).toMatch(pattern(output.body.trimEnd()));
    } finally {
      await stop(server);
    }
  });
});
