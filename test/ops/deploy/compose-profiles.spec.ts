/**
 * docker-compose.yml's profiles, checked as text (compose-file.ts reads the file as compose does):
 * `scale` (a read replica, two API instances behind nginx, Redis for their rate limits) and
 * `cluster` (three Galera nodes and an API instance given all three).
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

  it('should put db-replica, api-scaled, lb and redis in the scale profile only', () => {
    const scale = Object.entries(compose.services).filter(([, s]) => s.profiles?.includes('scale'));
    expect(scale.map(([name]) => name).sort()).toEqual(['api-scaled', 'db-replica', 'lb', 'redis']);
    for (const [, service] of scale) expect(service.profiles).toEqual(['scale']);
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

describe('docker-compose.yml, cluster profile (three Galera nodes, an API instance on them)', () => {
  const nodes = ['galera-1', 'galera-2', 'galera-3'];
  const instance = compose.services?.['api-cluster'] ?? {};
  const args = (service: Service) => service.command as string[];
  const cnf = readFileSync(join(ROOT, 'docker', 'galera.cnf'), 'utf8');

  it('should put the three nodes and api-cluster in the cluster profile only', () => {
    const cluster = Object.entries(compose.services).filter(([, s]) =>
      s.profiles?.includes('cluster'),
    );
    expect(cluster.map(([name]) => name).sort()).toEqual(['api-cluster', ...nodes]);
    for (const [, service] of cluster) expect(service.profiles).toEqual(['cluster']);
  });

  it('should run MariaDB 10.11 with Galera on every node, galera-1 starting the cluster and the others joining in turn', () => {
    for (const [index, name] of nodes.entries()) {
      const node = compose.services[name];
      expect(node.image).toBe('mariadb:10.11');
      expect(mounts(node)).toContainEqual({
        source: './docker/galera.cnf',
        target: '/etc/mysql/conf.d/galera.cnf',
      });
      const data = mounts(node).find((m) => m.target === '/var/lib/mysql')!;
      expect(Object.keys(compose.volumes ?? {})).toContain(data.source);
      expect(args(node)).toEqual([
        ...(index === 0 ? ['--wsrep-new-cluster'] : []),
        `--wsrep-node-name=${name}`,
        `--wsrep-node-address=${name}`,
        '--wsrep-sst-auth=root:records-root',
      ]);
      expect(node.depends_on).toEqual(
        index === 0 ? undefined : { [nodes[index - 1]]: { condition: 'service_healthy' } },
      );
      expect(envOf(node)).toEqual(envOf(db));
      // Healthy once Synced with the cluster, not merely answering.
      expect((node.healthcheck!.test as string[]).join(' ')).toContain(
        "SHOW STATUS LIKE 'wsrep_local_state_comment'\" | grep -q Synced",
      );
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
  });

  it('should give the instance every node in DATABASE_URL, the service variables and port CLUSTER_API_PORT', () => {
    const env = envOf(instance);
    expect(env.DATABASE_URL).toBe(
      'mysql://records:records@galera-1:3306,galera-2:3306,galera-3:3306/records',
    );
    expect(instance.build).toEqual(api.build);
    expect((instance.ports ?? []).map(String)).toEqual(['3001:3000']);
    expect(
      (
        loadCompose('docker-compose.yml', { CLUSTER_API_PORT: '4001' }).services['api-cluster']
          .ports ?? []
      ).map(String),
    ).toEqual(['4001:3000']);
    const all = Object.fromEntries(serviceVariables().map((name) => [name, `value-of-${name}`]));
    const passed = envOf(loadCompose('docker-compose.yml', all).services['api-cluster']);
    for (const name of serviceVariables()) expect([name, passed[name]]).toEqual([name, all[name]]);
    expect(instance.depends_on).toEqual(
      Object.fromEntries(nodes.map((name) => [name, { condition: 'service_healthy' }])),
    );
  });
});
