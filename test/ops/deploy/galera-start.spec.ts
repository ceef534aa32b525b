/**
 * docker/galera-start.sh, the cluster profile's node start (docker-compose.yml), run as compose
 * runs it, against fixture datadirs: the command it ends in (here `printf`, in place of the
 * image's docker-entrypoint.sh) shows whether it starts a new cluster, joins, or joins from a
 * recovered position. A new cluster only on the founder's empty datadir while no other node
 * answers, or on the node MariaDB marked safe_to_bootstrap; a node that crashed recovers its
 * position first (`mariadbd --wsrep-recover`: here a fixture program that writes what MariaDB
 * writes, the real one needing a server's datadir). The root password lands in two files only
 * their readers may read, never in the command.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { join } from 'node:path';
import { ROOT, scratchDir } from '../support/process';

const SCRIPT = join(ROOT, 'docker', 'galera-start.sh');
const UUID = '5ee99582-bb8d-11e2-b8e3-23de375c1d30';
const PASSWORD = 'r00t "pass\\word"';

interface Started {
  status: number | null;
  /** The command it ran in the end, one argument a line. */
  command: string[];
  stderr: string;
  /** Whether the position recovery ran, and its arguments. */
  recovery?: string[];
  dir: string;
}

/** grastate.dat as MariaDB writes it. */
const grastate = (seqno: number, safe: 0 | 1) =>
  `# GALERA saved state\nversion: 2.1\nuuid:    ${UUID}\nseqno:   ${seqno}\nsafe_to_bootstrap: ${safe}\n`;

/**
 * Runs the script for node `name` on a datadir holding `grastate` (none: a new datadir), with
 * `peers` as the other nodes of wsrep_cluster_address.
 */
async function start(options: {
  name: string;
  founder?: boolean;
  grastate?: string;
  peers: string[];
  env?: Record<string, string>;
}): Promise<Started> {
  const dir = scratchDir('records-galera-start-');
  const datadir = join(dir, 'data');
  mkdirSync(datadir);
  if (options.grastate) writeFileSync(join(datadir, 'grastate.dat'), options.grastate);
  const cnf = join(dir, 'galera.cnf');
  writeFileSync(
    cnf,
    `[mariadb]\nwsrep_on = ON\nwsrep_cluster_address = gcomm://${[options.name, ...options.peers].join(',')}\n`,
  );
  // mariadbd --wsrep-recover, as far as the script sees it: the line MariaDB logs.
  const recover = join(dir, 'mariadbd');
  writeFileSync(
    recover,
    '#!/bin/bash\n' +
      `printf '%s\\n' "$@" > ${join(dir, 'recovery-args')}\n` +
      'for arg; do case "$arg" in --log-error=*) log=${arg#*=} ;; esac; done\n' +
      `echo "2026-11-30 10:00:00 0 [Note] WSREP: Recovered position: ${UUID}:1234" >> "$log"\n`,
  );
  chmodSync(recover, 0o755);
  const child = spawn(
    'bash',
    [SCRIPT, 'printf', '%s\\n', 'mariadbd', `--wsrep-node-name=${options.name}`],
    {
      env: {
        PATH: process.env.PATH,
        DATADIR: datadir,
        GALERA_CNF: cnf,
        GALERA_SECRETS_CNF: join(dir, 'conf.d', 'zz-galera-secrets.cnf'),
        GALERA_HEALTHCHECK_CNF: join(dir, 'run', 'healthcheck.cnf'),
        MARIADBD: recover,
        MYSQL_ROOT_PASSWORD: PASSWORD,
        ...(options.founder ? { GALERA_FOUNDER: 'true' } : {}),
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  let recovery: string[] | undefined;
  try {
    recovery = readFileSync(join(dir, 'recovery-args'), 'utf8').trimEnd().split('\n');
  } catch {
    // not run
  }
  return { status, command: stdout.trimEnd().split('\n'), stderr, recovery, dir };
}

/** A port nothing listens on (a node that is down). */
const CLOSED = '127.0.0.1:9';

describe('docker/galera-start.sh: when a node starts a new cluster', () => {
  let peer: Server;
  let answering: string;
  beforeAll(async () => {
    peer = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    answering = `127.0.0.1:${(peer.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((resolve) => peer.close(resolve)));

  it('should start a new cluster on the founder with a new datadir while no other node answers', async () => {
    const run = await start({ name: 'galera-1', founder: true, peers: [CLOSED, CLOSED] });
    expect([run.status, run.command]).toEqual([
      0,
      ['mariadbd', '--wsrep-node-name=galera-1', '--wsrep-new-cluster'],
    ]);
    expect(run.stderr).toContain(
      'galera-1: a new datadir and no other node answers: starting a new cluster',
    );
    expect(run.recovery).toBeUndefined();
  });

  it('should join, not start a second cluster, when the founder has a new datadir but another node answers', async () => {
    const run = await start({ name: 'galera-1', founder: true, peers: [CLOSED, answering] });
    expect([run.status, run.command]).toEqual([0, ['mariadbd', '--wsrep-node-name=galera-1']]);
    expect(run.stderr).toContain(`${answering} answers`);
  });

  it('should join from a new datadir on any other node', async () => {
    const run = await start({ name: 'galera-2', peers: [CLOSED, CLOSED] });
    expect([run.status, run.command]).toEqual([0, ['mariadbd', '--wsrep-node-name=galera-2']]);
    expect(run.stderr).toContain('galera-2: a new datadir: joining the cluster');
  });

  it('should start the cluster again from its data on the node marked safe_to_bootstrap, founder or not, others up or not', async () => {
    for (const name of ['galera-1', 'galera-3']) {
      const run = await start({
        name,
        founder: name === 'galera-1',
        grastate: grastate(1234, 1),
        peers: [answering],
      });
      expect([run.status, run.command]).toEqual([
        0,
        ['mariadbd', `--wsrep-node-name=${name}`, '--wsrep-new-cluster'],
      ]);
      expect(run.recovery).toBeUndefined();
    }
  });

  it('should join, never bootstrap, a node not marked safe: the founder too, even when no node answers', async () => {
    const run = await start({
      name: 'galera-1',
      founder: true,
      grastate: grastate(1234, 0),
      peers: [CLOSED, CLOSED],
    });
    expect([run.status, run.command, run.recovery]).toEqual([
      0,
      ['mariadbd', '--wsrep-node-name=galera-1'],
      undefined,
    ]);
    expect(run.stderr).toContain(
      'galera-1: joining the cluster (not safe_to_bootstrap: when no node runs, see docs/operations.md)',
    );
  });

  it('should recover the position of a node that crashed (seqno -1) and join from it', async () => {
    const run = await start({ name: 'galera-2', grastate: grastate(-1, 0), peers: [CLOSED] });
    expect([run.status, run.command]).toEqual([
      0,
      ['mariadbd', '--wsrep-node-name=galera-2', `--wsrep-start-position=${UUID}:1234`],
    ]);
    expect(run.recovery).toEqual(expect.arrayContaining(['--wsrep-recover']));
    expect(run.stderr).toContain(
      `galera-2: not shut down cleanly; recovered position ${UUID}:1234`,
    );
  });

  it('should write the root password where only its readers read it, never on the command line', async () => {
    const run = await start({ name: 'galera-2', peers: [CLOSED] });
    const secrets = join(run.dir, 'conf.d', 'zz-galera-secrets.cnf');
    const client = join(run.dir, 'run', 'healthcheck.cnf');
    // Quoted as option files quote: backslashes and double quotes escaped.
    const quoted = '"r00t \\"pass\\\\word\\""';
    expect(readFileSync(secrets, 'utf8')).toBe(
      `[mariadb]\nwsrep_sst_auth = "root:${quoted.slice(1)}\n`,
    );
    expect(readFileSync(client, 'utf8')).toBe(
      `[mariadb-client]\nuser = root\npassword = ${quoted}\n`,
    );
    for (const file of [secrets, client]) expect(statSync(file).mode & 0o077).toBe(0);
    expect(run.command.join(' ')).not.toContain('r00t');
  });

  it('should refuse to start without MYSQL_ROOT_PASSWORD, saying so', async () => {
    const run = await start({ name: 'galera-1', peers: [], env: { MYSQL_ROOT_PASSWORD: '' } });
    expect([run.status, run.stderr.trim()]).toEqual([
      1,
      'galera-start: MYSQL_ROOT_PASSWORD is not set (docker-compose.yml passes it from .env)',
    ]);
  });
});
