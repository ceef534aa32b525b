/**
 * Backup and restore as docs/operations.md "Backup and restore" says: a `mariadb-dump` with the
 * section's options (read from it) of a database the built server is writing to, restored into a
 * new database, which the built server then serves as the first: the same records and ETags, the
 * change feed from the same cursor, a keyed write's answer replayed, the next id after the last,
 * and no demo rows added.
 *
 * Needs MySQL: OPS_MYSQL_URL names the server (mysql://root@127.0.0.1:3306); two databases of the
 * suite's own (records_collections_test_backup_<random>, _restore_<random>), dropped at the end.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blocksOf } from '../docs/doc-blocks';
import { call, json } from '../support/answers';
import { ROOT, scratchDir, ServerProcess, startServer, waitFor } from '../support/process';
import { opsServerUrl, useOwnDatabase } from './own-database';

const source = useOwnDatabase('backup');
const restored = useOwnDatabase('restore');

/** The dump's options as the section's first command gives them (its connection left out). */
function documentedDumpOptions(): string[] {
  const [dump] = blocksOf('docs/operations.md').filter(
    (b) => b.section === 'Backup and restore' && b.lang === 'sh',
  );
  const found = /exec mariadb-dump ((?:--[\w-]+(?:=\S+)? )+)"\$MYSQL_DATABASE"/.exec(dump.body);
  if (!found) throw new Error(`no mariadb-dump command in\n${dump.body}`);
  return found[1]
    .trim()
    .split(' ')
    .filter((option) => !option.startsWith('--user='));
}

/** The shared server's connection, as options of its command-line clients (password by MYSQL_PWD). */
function connection(): { args: string[]; env: NodeJS.ProcessEnv } {
  const url = new URL(opsServerUrl());
  return {
    args: [
      `--host=${url.hostname}`,
      `--port=${url.port || '3306'}`,
      `--user=${decodeURIComponent(url.username)}`,
    ],
    env: { ...process.env, MYSQL_PWD: decodeURIComponent(url.password) },
  };
}

/** Runs `command` with stdin/stdout from/to files; rejects with its stderr unless it exits 0. */
function run(
  command: string,
  args: string[],
  files: { stdin?: string; stdout?: string },
): Promise<void> {
  const { env } = connection();
  const stdin = files.stdin ? openSync(files.stdin, 'r') : 'ignore';
  const stdout = files.stdout ? openSync(files.stdout, 'w') : 'ignore';
  const child = spawn(command, args, { env, stdio: [stdin, stdout, 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      for (const fd of [stdin, stdout]) if (typeof fd === 'number') closeSync(fd);
      if (code === 0) resolve();
      else reject(new Error(`${command} exited ${code}: ${stderr}`));
    });
  });
}

async function serve(url: string): Promise<ServerProcess> {
  const server = await startServer({ DATABASE_URL: url, DEMO_DATA: 'true', LOG_LEVEL: 'warn' });
  await server.waitReady();
  return server;
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.waitExit();
}

/** What a client reads of the service: a record with its ETag, a list's count, the feed. */
async function reading(server: ServerProcess, id: number) {
  const record = await call(server.url(`/api/demo/marbles/${id}`));
  const list = await call(server.url('/api/demo/marbles?page_size=1'));
  const feed = await call(server.url('/api/events?after=0&limit=1000'));
  return {
    record: [record.status, record.headers.get('etag'), record.body],
    count: list.body.count,
    events: (feed.body.results as unknown[]) ?? feed.body,
  };
}

describe('backup and restore (docs/operations.md)', () => {
  it('should serve a dump restored into a new database as the database it was taken of', async () => {
    const options = documentedDumpOptions();
    expect(options).toEqual(expect.arrayContaining(['--single-transaction', '--routines']));

    const first = await serve(source.url);
    const keyed = json(
      'POST',
      { name: 'Backed Up', price: '3.25', user_id: 2 },
      {
        'Idempotency-Key': 'backup-restore-1',
      },
    );
    const created = await call(first.url('/api/demo/marbles'), keyed);
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const updated = await call(
      first.url(`/api/demo/marbles/${id}`),
      json('PATCH', { price: '4.5' }, { 'If-Match': created.headers.get('etag')! }),
    );
    expect(updated.status).toBe(200);
    // The feed numbers events just after their commit (docs/events.md): both, before the dump.
    await waitFor(
      async () => ((await reading(first, id)).events as unknown[]).length === 2,
      'the two events in the feed',
    );
    const before = await reading(first, id);

    // Dumped while the server runs (one transaction's snapshot), then restored into a new database.
    const dump = join(scratchDir('records-backup-'), 'records.sql');
    const { args } = connection();
    await run('mariadb-dump', [...args, ...options, source.name], { stdout: dump });
    expect(readFileSync(dump, 'utf8')).not.toMatch(/^CREATE DATABASE|^USE /m);
    await stop(first);
    await run('mariadb', [...args, restored.name], { stdin: dump });

    const second = await serve(restored.url);
    try {
      // The same records, ETags, list and feed: nothing added (no demo rows), nothing lost.
      expect(await reading(second, id)).toEqual(before);
      expect(before.record).toEqual([200, updated.headers.get('etag'), updated.body]);
      // The next record gets the next id (the counter came along).
      const next = await call(
        second.url('/api/demo/marbles'),
        json('POST', { name: 'After Restore', price: '1.0' }),
      );
      expect([next.status, next.body.id]).toEqual([201, id + 1]);
      // And the key's stored answer came along: the retry is replayed, not written again.
      const replayed = await call(second.url('/api/demo/marbles'), keyed);
      expect([
        replayed.status,
        replayed.headers.get('idempotent-replayed'),
        replayed.headers.get('location'),
      ]).toEqual([201, 'true', created.headers.get('location')]);
    } finally {
      await stop(second);
    }
  });
});

// The section exists and holds the commands this suite reads (a heading renamed would leave it
// reading nothing).
test('docs/operations.md keeps its "Backup and restore" section with the dump and the restore', () => {
  const text = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  expect(text).toContain('\n## Backup and restore\n');
  expect(documentedDumpOptions().length).toBeGreaterThan(2);
});
