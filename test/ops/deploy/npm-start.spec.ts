/**
 * `npm start` as a process manager or a terminal sees it: it builds only when the sources are
 * newer than the build, and a SIGTERM or SIGINT sent to the npm process stops the server (the
 * start script execs node, so npm's signal reaches the server itself): the port closes and no
 * node process is left behind.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { cleanup, freePort, ROOT, ServerProcess, sqliteUrl, waitFor } from '../support/process';

/** Pids of the running (not zombie) processes whose parent is `ppid`, with their command lines. */
function childrenOf(ppid: number): { pid: number; args: string }[] {
  const found: { pid: number; args: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces, so read from the last ')'.
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(parent) !== ppid || state === 'Z') continue;
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid: Number(name), args });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Whether `pid` is a live process (not gone, not a zombie). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function npmStart(): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      DATABASE_URL: sqliteUrl(),
      DEMO_DATA: 'false',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new ServerProcess(child, port);
}

/** Server processes a failed test may have left running: killed after each test. */
const started: number[] = [];
afterEach(async () => {
  for (const pid of started.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  await cleanup();
});

describe('npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'should stop the server when the npm process gets %s, leaving no node process behind',
    async (signal) => {
      const npm = await npmStart();
      await npm.waitReady();
      // The runner built just before: nothing is newer than the build, so nothing is rebuilt.
      expect(npm.stdout).toContain('The build (dist/) is up to date.');
      const servers = childrenOf(npm.child.pid!);
      expect(servers.map((s) => s.args)).toEqual([
        expect.stringMatching(
          /node --max-old-space-size=512 --max-semi-space-size=8 dist\/main\.js$/,
        ),
      ]);
      const [server] = servers;
      started.push(server.pid);
      npm.child.kill(signal);
      await npm.waitExit();
      await waitFor(async () => !(await listening(npm.port)), `port ${npm.port} closed`);
      await waitFor(() => !alive(server.pid), `server process ${server.pid} gone`);
      expect(alive(server.pid)).toBe(false);
      expect(await listening(npm.port)).toBe(false);
    },
  );
});

describe('the build step of npm start (scripts/build-if-stale.js)', () => {
  it('should be the prestart script, and start should exec the same command as the image', () => {
    const { scripts } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.prestart).toBe('node scripts/build-if-stale.js');
    expect(scripts.start).toMatch(/^exec node .*dist\/main\.js$/);
    expect(existsSync(`${ROOT}/scripts/build-if-stale.js`)).toBe(true);
  });
});
