/**
 * docker-compose.yml's profiles, checked as text (compose-file.ts reads the file as compose does):
 * `scale` (a read replica, two API instances behind nginx, Redis for their rate limits) and
 * `cluster` (three Galera nodes, each started by docker/galera-start.sh, whose decisions
 * galera-start.spec.ts checks; two API instances given all three, behind nginx, with Redis).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENVIRONMENT_VARIABLES, loadConfig } from '../../sources';
import {
  Service,
  api,
  compose,
  db,
  envOf,
  loadCompose,
  mounts,
  PASSWORDS,
  serviceVariables,
} from './compose-file';
import { EVICTION } from '../../../scripts/galera-cluster';
import { ROOT } from '../support/process';

describe('docker-compose.yml, scale profile (read replica, two API instances, nginx, redis)', () => {
  const replica = compose.services?.['db-replica'] ?? {};
  const scaled = compose.services?.['api-scaled'] ?? {};
  const lb = compose.services?.lb ?? {};
  const args = (service: Service) =>
    Array.isArray(service.command) ? service.command : (service.command ?? '').split(/\s+/);
  const initScript = readFileSync(join(ROOT, 'docker', 'replica-init.sh'), 'utf8');

  it('should put db-replica, api-scaled, lb and redis in the scale profile (redis in the cluster profile too)', () => {
    const scale = Object.entries(compose.services).filter(([, s]) => s.profiles?.includes('scale'));
    expect(scale.map(([name]) => name).sort()).toEqual(['api-scaled', 'db-replica', 'lb', 'redis']);
    for (const [name, service] of scale)
      expect([name, service.profiles]).toEqual([
        name,
        name === 'redis' ? ['scale', 'cluster'] : ['scale'],
      ]);
  });

  it('should run db with a row-based binary log, and db-replica as a read-only MariaDB 10.11 with another server id', () => {
    expect(args(db)).toEqual(['--server-id=1', '--log-bin=db-bin', '--binlog-format=ROW']);
    expect(replica.image).toBe('mariadb:10.11');
    expect(args(replica)).toContain('--read-only=ON');
    const serverId = (service: Service) =>
      args(service)
        .find((a) => a.startsWith('--server-id='))
        ?.slice('--server-id='.length) ?? '1';
    expect(serverId(replica)).not.toBe(serverId(db));
    expect(replica.depends_on).toEqual({ db: { condition: 'service_healthy' } });
  });

  it('should make db-replica a GTID replica of db with its init script, with its own data volume', () => {
    expect(mounts(replica)).toContainEqual({
      source: './docker/replica-init.sh',
      target: '/docker-entrypoint-initdb.d/replica-init.sh',
    });
    const data = mounts(replica).find((m) => m.target === '/var/lib/mysql');
    expect(Object.keys(compose.volumes ?? {})).toContain(data?.source);
    expect(data?.source).not.toBe(mounts(db).find((m) => m.target === '/var/lib/mysql')?.source);
    expect(initScript).toMatch(/CHANGE MASTER TO[^;]*MASTER_HOST = 'db'/);
    expect(initScript).toMatch(/MASTER_USE_GTID = slave_pos;/);
    expect(initScript).toContain('START SLAVE;');
    // The service's user may read the replica's state and lag.
    expect(initScript).toContain("GRANT SLAVE MONITOR ON *.* TO '$MYSQL_USER'@'%';");
    // REPLICATION_PASSWORD has no default: the script refuses to run without it, and hands the
    // passwords to the clients by MYSQL_PWD, not on their command lines.
    expect(initScript).toContain(
      ': "${REPLICATION_PASSWORD:?set REPLICATION_PASSWORD in .env for the scale profile (see .env.example)}"',
    );
    expect(initScript).not.toMatch(/--password/);
    expect(envOf(replica).REPLICATION_PASSWORD).toBe('');
    expect(
      envOf(
        loadCompose('docker-compose.yml', { ...PASSWORDS, REPLICATION_PASSWORD: 'repl-pw' })
          .services['db-replica'],
      ).REPLICATION_PASSWORD,
    ).toBe('repl-pw');
    const env = envOf(replica);
    expect(env.PRIMARY_ROOT_PASSWORD).toBe(envOf(db).MYSQL_ROOT_PASSWORD);
    // The same application database and user as on db (the primary's own are not replicated).
    for (const name of ['MYSQL_DATABASE', 'MYSQL_USER', 'MYSQL_PASSWORD'])
      expect([name, env[name]]).toEqual([name, envOf(db)[name]]);
  });

  it('should run two API instances from the same build, writing to db and reading from db-replica', () => {
    expect(scaled.build).toEqual(api.build);
    expect(scaled.deploy?.replicas).toBe(2);
    expect(scaled.ports).toBeUndefined();
    const env = envOf(scaled);
    const known: string[] = [...ENVIRONMENT_VARIABLES, ...serviceVariables(), 'NODE_ENV'];
    for (const name of Object.keys(env)) expect(known).toContain(name);
    expect(env.DATABASE_URL).toBe(envOf(api).DATABASE_URL);
    const config = loadConfig(env);
    const replicaEnv = envOf(replica);
    expect(config.replicas.urls).toEqual([
      `mysql://${replicaEnv.MYSQL_USER}:${replicaEnv.MYSQL_PASSWORD}@db-replica:3306/${replicaEnv.MYSQL_DATABASE}`,
    ]);
    expect(config.trustProxy).toBe(true);
    expect(scaled.depends_on).toEqual({
      db: { condition: 'service_healthy' },
      'db-replica': { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
  });

  it('should give the API instances one Redis for their rate limits, kept in memory only', () => {
    const redis = compose.services?.redis ?? {};
    expect(redis.image).toMatch(/^redis:7/);
    expect(args(redis)).toEqual(['redis-server', '--save', '', '--appendonly', 'no']);
    expect(loadConfig({ ...envOf(scaled), RATE_LIMIT: '600/60s' }).rateLimits).toEqual({
      all: { limit: 600, windowSeconds: 60 },
      writes: undefined,
      redisUrl: 'redis://redis:6379',
    });
  });

  it('should balance the API instances with nginx on port 8080', () => {
    expect(lb.image).toMatch(/^nginx:/);
    expect(lb.ports?.map(String)).toEqual(['8080:80']);
    expect(mounts(lb)).toContainEqual({
      source: './docker/nginx.conf',
      target: '/etc/nginx/nginx.conf',
    });
    const conf = readFileSync(join(ROOT, 'docker', 'nginx.conf'), 'utf8');
    expect(conf).toMatch(/upstream api \{\s*server api-scaled:3000;/);
    expect(conf).toContain('proxy_pass http://api;');
    expect(conf).toContain('listen 80;');
    expect(lb.depends_on).toEqual({ 'api-scaled': { condition: 'service_healthy' } });
  });
});

describe('docker-compose.yml, cluster profile (three Galera nodes, two API instances behind nginx, redis)', () => {
  const nodes = ['galera-1', 'galera-2', 'galera-3'];
  const instance = compose.services?.['api-cluster'] ?? {};
  const lb = compose.services?.['lb-cluster'] ?? {};
  const cnf = readFileSync(join(ROOT, 'docker', 'galera.cnf'), 'utf8');

  it('should put the three nodes, api-cluster, lb-cluster and redis in the cluster profile', () => {
    const cluster = Object.entries(compose.services).filter(([, s]) =>
      s.profiles?.includes('cluster'),
    );
    expect(cluster.map(([name]) => name).sort()).toEqual(
      ['api-cluster', 'lb-cluster', 'redis', ...nodes].sort(),
    );
    for (const [name, service] of cluster)
      expect([name, service.profiles]).toEqual([
        name,
        name === 'redis' ? ['scale', 'cluster'] : ['cluster'],
      ]);
  });

  it('should start each node through galera-start.sh, which decides the bootstrap: none on a command line, galera-1 the founder', () => {
    for (const [index, name] of nodes.entries()) {
      const node = compose.services[name];
      expect(node.image).toBe('mariadb:10.11');
      expect(mounts(node)).toEqual(
        expect.arrayContaining([
          { source: './docker/galera.cnf', target: '/etc/mysql/conf.d/galera.cnf' },
          { source: './docker/galera-start.sh', target: '/usr/local/bin/galera-start.sh' },
        ]),
      );
      const data = mounts(node).find((m) => m.target === '/var/lib/mysql')!;
      expect(Object.keys(compose.volumes ?? {})).toContain(data.source);
      // The script first, then the image's own entrypoint with the node's command.
      expect(node.entrypoint).toEqual(['galera-start.sh', 'docker-entrypoint.sh']);
      expect(node.command).toEqual([
        'mariadbd',
        `--wsrep-node-name=${name}`,
        `--wsrep-node-address=${name}`,
      ]);
      // Only the founder may start a new cluster on a new volume.
      const { GALERA_FOUNDER, ...env } = envOf(node);
      expect([name, GALERA_FOUNDER]).toEqual([name, index === 0 ? 'true' : undefined]);
      expect(env).toEqual(envOf(db));
      expect(node.depends_on).toEqual(
        index === 0 ? undefined : { [nodes[index - 1]]: { condition: 'service_healthy' } },
      );
      // Healthy once Synced (healthcheck.sh --galera_online: wsrep_local_state 4), as root with
      // the client settings galera-start.sh writes: no secret in the command.
      expect(node.healthcheck!.test).toEqual([
        'CMD',
        'healthcheck.sh',
        '--defaults-extra-file=/run/galera/healthcheck.cnf',
        '--connect',
        '--galera_online',
      ]);
    }
    for (const line of [
      'wsrep_on = ON',
      'wsrep_provider = /usr/lib/galera/libgalera_smm.so',
      'wsrep_cluster_address = gcomm://galera-1,galera-2,galera-3',
      'binlog_format = ROW',
      'innodb_autoinc_lock_mode = 2',
      'wsrep_sst_method = mariabackup',
      // How soon a node that stops answering is evicted: as on the project's own cluster.
      `wsrep_provider_options = "${EVICTION.join(';')}"`,
    ])
      expect(cnf).toContain(`\n${line}\n`);
    // The state transfers' credentials come from the script, not the file.
    expect(cnf).not.toContain('wsrep_sst_auth');
  });

  it('should run two instances given every node in DATABASE_URL, the service variables and Redis, behind nginx on CLUSTER_API_PORT', () => {
    const env = envOf(instance);
    expect(env.DATABASE_URL).toBe(
      `mysql://records:${PASSWORDS.MYSQL_PASSWORD}@galera-1:3306,galera-2:3306,galera-3:3306/records`,
    );
    expect(instance.build).toEqual(api.build);
    expect(instance.deploy?.replicas).toBe(2);
    expect(instance.ports).toBeUndefined();
    const config = loadConfig({ ...env, RATE_LIMIT: '600/60s' });
    expect([config.trustProxy, config.rateLimits.redisUrl]).toEqual([true, 'redis://redis:6379']);
    const all = Object.fromEntries(serviceVariables().map((name) => [name, `value-of-${name}`]));
    const passed = envOf(
      loadCompose('docker-compose.yml', { ...PASSWORDS, ...all }).services['api-cluster'],
    );
    for (const name of serviceVariables().filter((n) => n !== 'TRUST_PROXY'))
      expect([name, passed[name]]).toEqual([name, all[name]]);
    expect(instance.depends_on).toEqual({
      ...Object.fromEntries(nodes.map((name) => [name, { condition: 'service_healthy' }])),
      redis: { condition: 'service_healthy' },
    });

    expect(lb.image).toMatch(/^nginx:/);
    expect((lb.ports ?? []).map(String)).toEqual(['3001:80']);
    expect(
      (
        loadCompose('docker-compose.yml', { ...PASSWORDS, CLUSTER_API_PORT: '4001' }).services[
          'lb-cluster'
        ].ports ?? []
      ).map(String),
    ).toEqual(['4001:80']);
    expect(mounts(lb)).toContainEqual({
      source: './docker/nginx-cluster.conf',
      target: '/etc/nginx/nginx.conf',
    });
    expect(lb.depends_on).toEqual({ 'api-cluster': { condition: 'service_healthy' } });
    // The scale profile's nginx.conf but for the upstream's instances.
    const read = (file: string) => readFileSync(join(ROOT, 'docker', file), 'utf8');
    expect(read('nginx-cluster.conf')).toMatch(/upstream api \{\s*server api-cluster:3000;/);
    expect(
      read('nginx-cluster.conf')
        .replaceAll('api-cluster', 'api-scaled')
        .replace("The cluster profile's", "The scale profile's"),
    ).toBe(read('nginx.conf'));
  });
});
