/**
 * A Redis server of the test's own (redis-server, on 127.0.0.1 and a free port, nothing saved),
 * so a test may freeze it (SIGSTOP), thaw it and stop it without touching anyone else's.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

export function redisServerInstalled(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export class RedisServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(): Promise<RedisServer> {
    const port = await freePort();
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start: ${output}`)),
        30_000,
      );
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk;
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
    });
    child.stdout!.resume();
    child.stderr!.resume();
    return new RedisServer(child, port);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** It stops answering (the process is frozen; its connections stay open). */
  freeze(): void {
    this.child.kill('SIGSTOP');
  }

  thaw(): void {
    this.child.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
    await exited;
  }
}
