/**
 * The compiled server (`node dist/main.js`, built by `npm run build` before this project runs) as
 * a child process: a clean environment of the test's choosing, a scratch working directory (so no
 * `.env` of the developer's is read), stdout and stderr collected line by line.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../../..');

/**
 * The Jest timeout of every test and hook that starts a server: generous, so that a loaded
 * machine slows a suite down instead of failing it. The waits inside (for a log line, for
 * readiness, for an exit) have timeouts of their own, shorter than this.
 */
export const PROCESS_TIMEOUT = 120_000;

/** Polls `condition` every `everyMs` until it holds; fails naming `what` after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
export const MAIN = join(ROOT, 'dist', 'main.js');

export function assertBuilt(): void {
  if (!existsSync(MAIN))
    throw new Error(`${MAIN} is missing: run "npm run build" before the ops tests.`);
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** A scratch directory, removed by `cleanup()`. */
export function scratchDir(prefix = 'records-ops-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

const scratch: string[] = [];
const running = new Set<ServerProcess>();

/** Kills what a suite left running and removes its scratch directories. */
export async function cleanup(): Promise<void> {
  for (const server of running) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A pino log line (JSON) as the service writes it. */
export interface LogEntry {
  level: number;
  time: number;
  msg: string;
  req?: { id: string; method: string; path: string; actor?: string };
  res?: { status: number };
  duration_ms?: number;
  [key: string]: unknown;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Milliseconds since the process was spawned. */
  at: number;
}

export class ServerProcess {
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<Exit>;
  readonly started = Date.now();
  exit?: Exit;
  private waiters: (() => void)[] = [];

  constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {
    running.add(this);
    collectLines(child.stdout!, this.stdout, () => this.wake());
    collectLines(child.stderr!, this.stderr, () => this.wake());
    this.exited = new Promise((resolveExit) => {
      // 'close', not 'exit': by then stdout and stderr have been read to the end.
      child.on('close', (code, signal) => {
        this.exit = { code, signal, at: Date.now() - this.started };
        running.delete(this);
        this.wake();
        resolveExit(this.exit);
      });
    });
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Stdout lines parsed as JSON; throws naming the first line that is not. */
  jsonLines(): LogEntry[] {
    return this.stdout.map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        throw new Error(`stdout line is not JSON: ${line}`);
      }
    });
  }

  /** Waits for a stdout line that is JSON and satisfies `test`. */
  async waitForLog(test: (entry: LogEntry) => boolean, timeoutMs = 30_000): Promise<LogEntry> {
    const line = await this.waitForLine((text) => {
      try {
        return test(JSON.parse(text) as LogEntry);
      } catch {
        return false; // not JSON: not what we wait for
      }
    }, timeoutMs);
    return JSON.parse(line) as LogEntry;
  }

  /**
   * Sends a request that is logged at any level up to warn (a 404) and waits for its line: the
   * lines of every request answered before it have been written by then.
   */
  async logsSettled(): Promise<void> {
    const id = `settled-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const res = await fetch(this.url('/ops-settled'), { headers: { 'X-Request-Id': id } });
    await res.arrayBuffer();
    await this.waitForLine((line) => line.includes(id));
  }

  /** Waits for a stdout line that satisfies `test`, and returns it. */
  async waitForLine(test: (line: string) => boolean, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.stdout.find(test);
      if (line !== undefined) return line;
      if (this.exit)
        throw new Error(
          `server exited (${JSON.stringify(this.exit)}) before the log line came\n${this.dump()}`,
        );
      if (Date.now() > deadline)
        throw new Error(`no such log line within ${timeoutMs} ms\n${this.dump()}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  /** Polls `path` until it answers 200. */
  async waitReady(path = '/health/ready', timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exit)
        throw new Error(
          `server exited (${JSON.stringify(this.exit)}) before it was ready\n${this.dump()}`,
        );
      try {
        const res = await fetch(this.url(path), { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline)
        throw new Error(`not ready within ${timeoutMs} ms\n${this.dump()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Waits for the exit, failing after `timeoutMs` (the process is then killed). */
  async waitExit(timeoutMs = 60_000): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`no exit within ${timeoutMs} ms\n${this.dump()}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  dump(): string {
    return `--- stdout\n${this.stdout.join('\n')}\n--- stderr\n${this.stderr.join('\n')}`;
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }
}

/**
 * Starts `node dist/main.js` with exactly `env` (plus PATH and HOME) and PORT, unless `env` sets
 * PORT itself. The working directory is `cwd`, by default a new scratch directory.
 */
export async function startServer(
  env: Record<string, string> = {},
  cwd = scratchDir('records-ops-cwd-'),
): Promise<ServerProcess> {
  assertBuilt();
  const port = env.PORT !== undefined ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, [MAIN], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new ServerProcess(child, port);
}

/** `DATABASE_URL` for a new SQLite file in a scratch directory. */
export function sqliteUrl(): string {
  return `sqlite:${join(scratchDir('records-ops-db-'), 'records.sqlite')}`;
}

function collectLines(stream: NodeJS.ReadableStream, lines: string[], onLine: () => void) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    rest += chunk;
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const line of parts) lines.push(line);
    if (parts.length) onLine();
  });
  stream.on('end', () => {
    if (rest) lines.push(rest);
    rest = '';
    onLine();
  });
}
