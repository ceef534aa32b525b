/**
 * Commands run as a person pastes them into a terminal: each by bash, in the directory the one
 * before left (a `cd` carries over, as it does in a terminal), with only PATH, HOME and how the
 * machine reaches the network from the test's environment (npm's cache is the user's, as it
 * would be; a person's shell has the machine's proxy and certificate settings too).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A command that keeps running while others run (a stream in another terminal). */
export interface Running {
  /** Settles once it has printed something (or ended). */
  started: Promise<void>;
  done: Promise<Run>;
}

/**
 * How this machine reaches the network, as a person's shell has it: the proxy and the certificate
 * authorities it trusts. Without NODE_EXTRA_CA_CERTS where the network presents its own authority,
 * npm on Node 26 waits forever for the registry instead of failing (found in CI).
 */
const NETWORK = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
];

export class Terminal {
  /** Not the project's node_modules/.bin, which `npm test` puts on PATH: a person has none. */
  private readonly env = {
    PATH: (process.env.PATH ?? '/usr/bin:/bin')
      .split(':')
      .filter((dir) => !dir.endsWith('/node_modules/.bin'))
      .join(':'),
    HOME: process.env.HOME ?? '/tmp',
    ...Object.fromEntries(
      NETWORK.filter((name) => process.env[name] !== undefined).map((name) => [
        name,
        process.env[name],
      ]),
    ),
  };

  constructor(
    public cwd: string,
    private readonly timeoutMs: number,
  ) {}

  /** Runs `command` to its end; the directory it ends in is the next command's. */
  async run(command: string): Promise<Run> {
    const where = join(tmpdir(), `terminal-${randomBytes(6).toString('hex')}.pwd`);
    const run = await this.spawn(`${command}\n__status=$?\npwd > '${where}'\nexit $__status\n`)
      .done;
    try {
      this.cwd = readFileSync(where, 'utf8').trim();
      rmSync(where);
    } catch {
      // the command exited before its end: the directory stays
    }
    return run;
  }

  /** Starts `command` and lets it run while the next ones do. */
  start(command: string): Running {
    return this.spawn(command);
  }

  private spawn(script: string): Running {
    const child = spawn('bash', ['-c', script], {
      cwd: this.cwd,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let printed: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (printed = resolve));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      printed();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${this.timeoutMs} ms)`;
      process.kill(-child.pid!, 'SIGKILL');
    }, this.timeoutMs);
    const done = new Promise<Run>((resolve) =>
      child.on('close', (status) => {
        clearTimeout(timer);
        printed();
        resolve({ status, stdout, stderr });
      }),
    );
    return { started, done };
  }
}
