/**
 * nginx (Debian's package) as the load balancer in front of the service's instances, on the
 * loopback, with its configuration, logs and temporary files in a folder of the test's own.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBinary, freePort } from '../../../scripts/mariadb-pair';
import { waitFor } from '../support/process';

export class Nginx {
  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
    private readonly exited: Promise<void>,
  ) {}

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Balances round robin over `upstreams` (ports on 127.0.0.1). */
  static async start(dir: string, upstreams: number[]): Promise<Nginx> {
    const binary = findBinary('nginx');
    if (!binary) throw new Error('nginx is not installed (apt-get install nginx)');
    mkdirSync(join(dir, 'logs'), { recursive: true });
    const port = await freePort();
    const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`;
    const config = `
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'logs', 'error.log')} warn;
events { worker_connections 512; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  upstream api {
    ${upstreams.map((p) => `server 127.0.0.1:${p};`).join('\n    ')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://api;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
    }
  }
}
`;
    const file = join(dir, 'nginx.conf');
    writeFileSync(file, config);
    const child = spawn(binary, ['-p', dir, '-c', file, '-e', join(dir, 'logs', 'error.log')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    let closed = false;
    const exited = new Promise<void>((resolve) =>
      child.on('close', () => {
        closed = true;
        resolve();
      }),
    );
    const nginx = new Nginx(port, child, exited);
    await waitFor(
      async () => {
        if (closed) throw new Error(`nginx exited at start: ${stderr}`);
        try {
          const res = await fetch(nginx.url('/health/live'), { signal: AbortSignal.timeout(2000) });
          await res.arrayBuffer();
          return res.status === 200;
        } catch {
          return false;
        }
      },
      'nginx answering',
      30_000,
    );
    return nginx;
  }

  /** SIGQUIT (graceful) to the master process, and wait for its exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGQUIT');
    await this.exited;
  }
}
