/**
 * The container wiring, checked as text: docker-compose.yml (parsed with `yaml`, its `${VAR:-default}`
 * references filled in as compose fills them from the environment and `.env`), the database-port
 * override, .dockerignore and the Dockerfile. No Docker needed; `docker-compose config -q` runs
 * too where that tool is installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { parse } from 'yaml';
import { COLLECTION_NAMES, ENVIRONMENT_VARIABLES, loadConfig } from '../sources';
import { ROOT } from './process';

// The docker-compose check may take its time where the tool is installed.
interface Service {
  image?: string;
  build?: string | { context: string; dockerfile?: string };
  environment?: Record<string, string | number | boolean | null> | string[];
  volumes?: (string | { source: string; target: string })[];
  healthcheck?: { test: string | string[]; disable?: boolean; retries?: number; interval?: string };
  depends_on?: unknown;
  ports?: (string | number)[];
  profiles?: string[];
  command?: string | string[];
  deploy?: { replicas?: number };
  restart?: string;
  stop_grace_period?: string;
}

interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

/**
 * Compose's interpolation: `${NAME:-default}` (default when unset or empty), `${NAME-default}`
 * (when unset), `${NAME}`, and `$$` for a literal `$`. A bare `$NAME` is refused, to keep the file
 * to the explicit forms.
 */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(
    /\$\$|\$\{(\w+)(?:(:?-)([^}]*))?\}|\$(\w+)/g,
    (whole, name?: string, op?: string, fallback?: string, bare?: string) => {
      if (whole === '$$') return '$';
      if (bare) throw new Error(`bare $${bare} in a compose file: write \${${bare}}`);
      const value = env[name!];
      if (op === ':-') return value ? value : fallback!;
      if (op === '-') return value !== undefined ? value : fallback!;
      if (value === undefined) throw new Error(`\${${name}} has no default`);
      return value;
    },
  );
}

function loadCompose(file: string, env: Record<string, string> = {}): Compose {
  // Merge keys (`<<: *anchor`), as compose reads them.
  return parse(interpolate(readFileSync(join(ROOT, file), 'utf8'), env), {
    merge: true,
  }) as Compose;
}

const compose = loadCompose('docker-compose.yml');
const db = compose.services?.db ?? {};
const api = compose.services?.api ?? {};

/** `environment` as a map, whether written as a map or as a list of NAME=value. */
function environment(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => {
        const at = entry.indexOf('=');
        return at === -1 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** Volume mounts as {source, target}, short or long syntax. */
function mounts(service: Service): { source: string; target: string }[] {
  return (service.volumes ?? []).map((v) => {
    if (typeof v !== 'string') return { source: v.source, target: v.target };
    const [source, target] = v.split(':');
    return { source, target };
  });
}

/**
 * Every variable the service reads that compose passes through: ENVIRONMENT_VARIABLES and one
 * PAGE_TOTAL_COUNT_<COLLECTION> per collection, but PORT and DATABASE_URL, which the compose
 * services set to the container's own.
 */
function serviceVariables(): string[] {
  return [
    ...ENVIRONMENT_VARIABLES.filter((name) => name !== 'PORT' && name !== 'DATABASE_URL'),
    ...COLLECTION_NAMES.map((name) => `PAGE_TOTAL_COUNT_${name.toUpperCase()}`),
  ];
}

describe('docker-compose.yml', () => {
  it('should define exactly the db and api services outside profiles', () => {
    const always = Object.entries(compose.services).filter(([, service]) => !service.profiles);
    expect(always.map(([name]) => name).sort()).toEqual(['api', 'db']);
  });

  it('should run the database on the mariadb:10.11 image, the engine the tests run', () => {
    expect(db.image).toBe('mariadb:10.11');
  });

  it('should keep the database in a named volume mounted at /var/lib/mysql', () => {
    const data = mounts(db).filter((m) => m.target === '/var/lib/mysql');
    expect(data).toHaveLength(1);
    const [{ source }] = data;
    // A named volume, declared at the top level: not a bind mount of a host path.
    expect(source).toMatch(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/);
    expect(Object.keys(compose.volumes ?? {})).toContain(source);
  });

  it('should give the database a health check that pings it with the service credentials', () => {
    expect(db.healthcheck).toBeDefined();
    const check = db.healthcheck!;
    expect(check.disable).not.toBe(true);
    const test: string[] = Array.isArray(check.test) ? check.test : ['CMD-SHELL', check.test];
    expect(['CMD', 'CMD-SHELL']).toContain(test[0]);
    const command = test.slice(1).join(' ');
    expect(command).toMatch(/\b(mariadb-admin|mysqladmin)\b/);
    expect(command).toContain('ping');
    const env = environment(db);
    expect(command).toContain(`--user=${env.MYSQL_USER}`);
    expect(command).toContain(`--password=${env.MYSQL_PASSWORD}`);
    expect(check.retries).toBeGreaterThanOrEqual(1);
    expect(check.interval).toMatch(/^\d+(ms|s|m)$/);
  });

  it('should create the application database and user in the db service', () => {
    const env = environment(db);
    expect(env.MYSQL_DATABASE).toMatch(/^\w+$/);
    expect(env.MYSQL_USER).toMatch(/^\w+$/);
    expect(env.MYSQL_PASSWORD).not.toBe('');
    expect(env.MYSQL_USER).not.toBe('root');
    expect(env.MYSQL_ROOT_PASSWORD ?? env.MYSQL_RANDOM_ROOT_PASSWORD).toBeTruthy();
  });

  it('should build the api from the project directory', () => {
    expect(api.build).toBeDefined();
    const build = typeof api.build === 'string' ? { context: api.build } : api.build!;
    expect(build.context).toBe('.');
    expect(build.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
  });

  it('should start the api only once the db is healthy', () => {
    expect(api.depends_on).toEqual({ db: { condition: 'service_healthy' } });
  });

  it('should point the api DATABASE_URL at host db with the db service database, user and password', () => {
    const dbEnv = environment(db);
    const url = new URL(environment(api).DATABASE_URL);
    expect(url.protocol).toBe('mysql:');
    expect(url.hostname).toBe('db');
    expect(url.port === '' || url.port === '3306').toBe(true);
    expect(decodeURIComponent(url.username)).toBe(dbEnv.MYSQL_USER);
    expect(decodeURIComponent(url.password)).toBe(dbEnv.MYSQL_PASSWORD);
    expect(decodeURIComponent(url.pathname.slice(1))).toBe(dbEnv.MYSQL_DATABASE);
  });

  it('should publish port 3000 on 3000 and have the api listen there', () => {
    expect((api.ports ?? []).map(String)).toEqual(['3000:3000']);
    expect(environment(api).PORT ?? '3000').toBe('3000');
  });

  it('should take the host port from API_PORT and the credentials from variables (.env), the same in every place', () => {
    const env = {
      API_PORT: '8080',
      MYSQL_DATABASE: 'shop',
      MYSQL_USER: 'shopper',
      MYSQL_PASSWORD: 's3cret-pw',
      MYSQL_ROOT_PASSWORD: 'r00t-pw',
    };
    const set = loadCompose('docker-compose.yml', env);
    const setDb = set.services.db;
    const setApi = set.services.api;
    expect((setApi.ports ?? []).map(String)).toEqual(['8080:3000']);
    expect(environment(setDb)).toEqual({
      MYSQL_DATABASE: 'shop',
      MYSQL_USER: 'shopper',
      MYSQL_PASSWORD: 's3cret-pw',
      MYSQL_ROOT_PASSWORD: 'r00t-pw',
    });
    expect(environment(setApi).DATABASE_URL).toBe('mysql://shopper:s3cret-pw@db:3306/shop');
    const check = setDb.healthcheck!.test as string[];
    expect(check).toContain('--user=shopper');
    expect(check).toContain('--password=s3cret-pw');
    // Unset or empty: the defaults, the values the file had before it read variables.
    expect(environment(db)).toEqual({
      MYSQL_DATABASE: 'records',
      MYSQL_USER: 'records',
      MYSQL_PASSWORD: 'records',
      MYSQL_ROOT_PASSWORD: 'records-root',
    });
    expect(loadCompose('docker-compose.yml', { API_PORT: '' })).toEqual(compose);
    // The scale profile's services take the same credentials.
    const replica = environment(set.services['db-replica']);
    expect(replica).toMatchObject({
      MYSQL_DATABASE: 'shop',
      MYSQL_USER: 'shopper',
      MYSQL_PASSWORD: 's3cret-pw',
      PRIMARY_ROOT_PASSWORD: 'r00t-pw',
    });
    expect(environment(set.services['api-scaled'])).toMatchObject({
      DATABASE_URL: 'mysql://shopper:s3cret-pw@db:3306/shop',
      DATABASE_REPLICA_URLS: 'mysql://shopper:s3cret-pw@db-replica:3306/shop',
    });
  });

  it('should list the variables compose reads in .env.example', () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const text = ['docker-compose.yml', 'docker-compose.db-port.yml']
      .map((f) => readFileSync(join(ROOT, f), 'utf8'))
      .join('\n');
    const read = new Set([...text.matchAll(/\$\{(\w+)/g)].map((m) => m[1]));
    // The service's own variables, passed to the API services, are the next test's.
    const service = new Set<string>(serviceVariables());
    const names = [...read].filter((name) => !service.has(name));
    for (const name of read)
      expect([name, service.has(name) || names.includes(name)]).toEqual([name, true]);
    expect(names.sort()).toEqual(
      [
        'API_PORT',
        'DB_PORT',
        'MYSQL_DATABASE',
        'MYSQL_PASSWORD',
        'MYSQL_ROOT_PASSWORD',
        'MYSQL_USER',
        'REPLICATION_PASSWORD',
        'CLUSTER_API_PORT',
      ].sort(),
    );
    for (const name of names) expect(example).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
  });

  it('should pass every variable the service reads, set in .env, to the api service (PORT and DATABASE_URL are its own)', () => {
    // A .env as a user writes it: every variable of .env.example the service reads, set.
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const listed = [...example.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]);
    const known = serviceVariables();
    const served = listed.filter(
      (name) => known.includes(name) || name === 'PORT' || name === 'DATABASE_URL',
    );
    expect(served).toEqual(
      expect.arrayContaining(['API_TOKEN', 'CORS_ORIGINS', 'PORT', 'DATABASE_URL']),
    );
    const dotEnv = served.map((name) => `${name}=value-of-${name}`).join('\n');
    const env = parseEnv(dotEnv) as Record<string, string>;
    const resolved = environment(loadCompose('docker-compose.yml', env).services.api);
    for (const name of served) {
      const expected =
        name === 'PORT'
          ? '3000'
          : name === 'DATABASE_URL'
            ? environment(api).DATABASE_URL
            : env[name];
      expect([name, resolved[name]]).toEqual([name, expected]);
    }
    // And every variable the service reads, whether .env.example lists it or not.
    const all = Object.fromEntries(known.map((name) => [name, `value-of-${name}`]));
    const everything = environment(loadCompose('docker-compose.yml', all).services.api);
    for (const name of known) expect([name, everything[name]]).toEqual([name, all[name]]);
    // The scale profile's instances get them too, with their own database URLs and TRUST_PROXY.
    const scaled = environment(loadCompose('docker-compose.yml', all).services['api-scaled']);
    for (const name of known.filter((n) => !['DATABASE_REPLICA_URLS', 'TRUST_PROXY'].includes(n)))
      expect([name, scaled[name]]).toEqual([name, all[name]]);
  });

  it('should protect writes with the API_TOKEN of .env, and leave every unset variable at its default', () => {
    const token = 'a-token-of-32-characters-or-so!!';
    const env = parseEnv(`API_TOKEN=${token}\nCORS_ORIGINS=https://app.example\n`) as Record<
      string,
      string
    >;
    const config = loadConfig(environment(loadCompose('docker-compose.yml', env).services.api));
    expect(config.apiToken).toBe(token);
    expect(config.corsOrigins).toEqual(['https://app.example']);
    // Nothing set: what the service runs with is its own defaults, apart from compose's own.
    const defaults = loadConfig(environment(api));
    const bare = loadConfig({ DATABASE_URL: environment(api).DATABASE_URL, DEMO_DATA: 'true' });
    expect({ ...defaults }).toEqual({ ...bare });
  });

  it('should not publish the database port unless asked, and publish it on 127.0.0.1:DB_PORT with the override', () => {
    expect(db.ports).toBeUndefined();
    const byDefault = loadCompose('docker-compose.db-port.yml');
    expect(byDefault).toEqual({ services: { db: { ports: ['127.0.0.1:3306:3306'] } } });
    const chosen = loadCompose('docker-compose.db-port.yml', { DB_PORT: '13306' });
    expect(chosen.services.db.ports).toEqual(['127.0.0.1:13306:3306']);
  });

  it('should restart every failing service a limited number of times (on-failure:N), not forever', () => {
    for (const service of Object.values(compose.services)) {
      expect(service.restart).toMatch(/^on-failure:\d+$/);
      const tries = Number(service.restart!.split(':')[1]);
      expect(tries).toBeGreaterThanOrEqual(1);
      expect(tries).toBeLessThanOrEqual(10);
    }
  });

  it('should give every API service more time to stop than the default SHUTDOWN_TIMEOUT', () => {
    for (const name of ['api', 'api-scaled', 'api-cluster']) {
      const grace = /^(\d+)s$/.exec(compose.services[name].stop_grace_period ?? '10s')!;
      expect([name, Number(grace[1])]).toEqual([name, loadConfig({}).shutdownTimeout + 5]);
    }
  });

  it('should pass PUBLIC_URL and ALLOWED_HOSTS to every API service, unset by default', () => {
    for (const name of ['api', 'api-scaled']) {
      expect(environment(compose.services[name])).toMatchObject({
        PUBLIC_URL: '',
        ALLOWED_HOSTS: '',
      });
      const set = loadCompose('docker-compose.yml', {
        PUBLIC_URL: 'https://records.example.com',
        ALLOWED_HOSTS: 'records.example.com',
      });
      const config = loadConfig(environment(set.services[name]));
      expect([config.publicUrl, config.allowedHosts]).toEqual([
        'https://records.example.com',
        ['records.example.com'],
      ]);
    }
  });

  it('should load the demo data', () => {
    expect(environment(api).DEMO_DATA).toBe('true');
  });

  it('should only set variables the service knows, with valid values', () => {
    const known: string[] = [...ENVIRONMENT_VARIABLES, ...serviceVariables(), 'NODE_ENV'];
    const env = environment(api);
    for (const name of Object.keys(env)) expect(known).toContain(name);
    // Validated the way the service validates them at start.
    const config = loadConfig(env);
    expect(config.database).toEqual({
      type: 'mysql',
      url: env.DATABASE_URL,
      database: environment(db).MYSQL_DATABASE,
    });
    expect(config.port).toBe(3000);
    expect(config.demoData).toBe(true);
  });

  it('should pass "docker-compose config -q" where docker-compose is installed', () => {
    const version = spawnSync('docker-compose', ['version'], { encoding: 'utf8', timeout: 30_000 });
    if (version.error) {
      // Not installed here: the only acceptable reason to leave the tool out.
      expect((version.error as NodeJS.ErrnoException).code).toBe('ENOENT');
      return;
    }
    const run = spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });
});

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
    const env = environment(replica);
    expect(env.PRIMARY_ROOT_PASSWORD).toBe(environment(db).MYSQL_ROOT_PASSWORD);
    // The same application database and user as on db (the primary's own are not replicated).
    for (const name of ['MYSQL_DATABASE', 'MYSQL_USER', 'MYSQL_PASSWORD'])
      expect([name, env[name]]).toEqual([name, environment(db)[name]]);
  });

  it('should run two API instances from the same build, writing to db and reading from db-replica', () => {
    expect(scaled.build).toEqual(api.build);
    expect(scaled.deploy?.replicas).toBe(2);
    expect(scaled.ports).toBeUndefined();
    const env = environment(scaled);
    const known: string[] = [...ENVIRONMENT_VARIABLES, ...serviceVariables(), 'NODE_ENV'];
    for (const name of Object.keys(env)) expect(known).toContain(name);
    expect(env.DATABASE_URL).toBe(environment(api).DATABASE_URL);
    const config = loadConfig(env);
    const replicaEnv = environment(replica);
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
    expect(loadConfig({ ...environment(scaled), RATE_LIMIT: '600/60s' }).rateLimits).toEqual({
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
      expect(environment(node)).toEqual(environment(db));
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
    ])
      expect(cnf).toContain(`\n${line}\n`);
  });

  it('should give the instance every node in DATABASE_URL, the service variables and port CLUSTER_API_PORT', () => {
    const env = environment(instance);
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
    const passed = environment(loadCompose('docker-compose.yml', all).services['api-cluster']);
    for (const name of serviceVariables()) expect([name, passed[name]]).toEqual([name, all[name]]);
    expect(instance.depends_on).toEqual(
      Object.fromEntries(nodes.map((name) => [name, { condition: 'service_healthy' }])),
    );
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  // Instructions, with continuation lines joined and comments dropped.
  const instructions = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: string[][] = [];
  for (const line of instructions) {
    if (/^FROM\s/i.test(line)) stages.push([]);
    stages[stages.length - 1]?.push(line);
  }
  const named = (name: string) =>
    stages.find((stage) => new RegExp(`^FROM\\s+\\S+\\s+AS\\s+${name}$`, 'i').test(stage[0])) ?? [];
  const toolchain = named('toolchain');
  const build = named('build');
  const deps = named('deps');
  const final = stages[stages.length - 1] ?? [];
  const of = (stage: string[], keyword: string) =>
    stage.filter((line) => new RegExp(`^${keyword}\\s`, 'i').test(line));

  it('should be multi-stage on node:26-slim: a toolchain, build and deps on it, and the final stage', () => {
    expect(instructions.filter((l) => /^FROM\s/i.test(l))).toEqual([
      'FROM node:26-slim AS toolchain',
      'FROM toolchain AS build',
      'FROM toolchain AS deps',
      'FROM node:26-slim',
    ]);
  });

  it('should install from the lockfile and build in the build stage', () => {
    const runs = of(toolchain, 'RUN').concat(of(build, 'RUN')).join('\n');
    expect(runs).toMatch(/\bnpm ci\b/);
    expect(runs).toMatch(/\bnpm run build\b/);
    expect(of(toolchain, 'COPY').join('\n')).toContain('package-lock.json');
  });

  it('should install the production dependencies without dev and optional ones (no TypeScript) in the deps stage', () => {
    const runs = of(deps, 'RUN');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/^RUN npm ci --omit=dev --omit=optional --no-audit --no-fund(\s|$)/);
    // Whatever else it does, it does to better-sqlite3's folder only (test/ops/start-sequence.js
    // runs these lines and checks that the addon still loads).
    const rest = runs[0]
      .split('&&')
      .slice(1)
      .map((c) => c.trim());
    expect(rest[0]).toBe('cd node_modules/better-sqlite3');
    for (const command of rest.slice(1)) expect(command).toMatch(/^rm -rf(\s+[\w./]+)+$/);
  });

  it('should copy into the build stage only files that exist and that .dockerignore lets through', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split(/\r?\n/)
      .filter(Boolean);
    for (const line of of(toolchain, 'COPY').concat(of(build, 'COPY'))) {
      const parts = line
        .split(/\s+/)
        .slice(1)
        .filter((p) => !p.startsWith('--'));
      for (const source of parts.slice(0, -1)) {
        expect([source, existsSync(join(ROOT, source))]).toEqual([source, true]);
        expect(ignored).not.toContain(source);
      }
    }
    for (const must of ['node_modules', 'dist', '.env', '.git', 'test', 'test-output', 'coverage'])
      expect(ignored).toContain(must);
  });

  it('should copy only package.json and node_modules of the deps stage and dist of the build stage into the final stage', () => {
    const copies = of(final, 'COPY').concat(of(final, 'ADD'));
    const sources: string[] = [];
    for (const line of copies) {
      const from = /^COPY\s.*--from=(\w+)\b/.exec(line)?.[1];
      const parts = line
        .split(/\s+/)
        .slice(1)
        .filter((p) => !p.startsWith('--'));
      for (const source of parts.slice(0, -1))
        sources.push(`${from}:${source.replace(/^\/app\//, '').replace(/\/$/, '')}`);
    }
    expect(sources.sort()).toEqual(['build:dist', 'deps:node_modules', 'deps:package.json']);
  });

  it('should run as the unprivileged node user in the final stage', () => {
    const users = of(final, 'USER');
    expect(users).toEqual(['USER node']);
    const userAt = final.indexOf('USER node');
    const cmdAt = final.findIndex((l) => /^CMD\s/i.test(l));
    expect(userAt).toBeGreaterThan(0);
    expect(userAt).toBeLessThan(cmdAt);
  });

  it('should set NODE_ENV=production and expose port 3000 in the final stage', () => {
    expect(of(final, 'ENV').join(' ')).toMatch(/\bNODE_ENV=production\b/);
    expect(of(final, 'EXPOSE')).toEqual(['EXPOSE 3000']);
  });

  it('should have a HEALTHCHECK in the final stage that asks /health/ready', () => {
    const checks = of(final, 'HEALTHCHECK');
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatch(/\sCMD\s/);
    expect(checks[0]).toContain('/health/ready');
    expect(checks[0]).not.toMatch(/\bcurl\b|\bwget\b/); // node:26-slim has neither
  });

  it('should start with CMD node dist/main.js, with the V8 flags of npm start', () => {
    const cmds = of(final, 'CMD');
    expect(cmds).toHaveLength(1);
    const cmd = cmds[0].replace(/^CMD\s+/i, '');
    const argv = cmd.startsWith('[') ? JSON.parse(cmd) : cmd.split(/\s+/);
    const start = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: { start: string };
      }
    ).scripts.start;
    // npm start execs the same command (so that npm's signals reach the server).
    expect(`exec ${argv.join(' ')}`).toBe(start);
    expect(argv).toEqual([
      'node',
      '--max-old-space-size=512',
      '--max-semi-space-size=8',
      'dist/main.js',
    ]);
    expect(of(final, 'ENTRYPOINT')).toEqual([]);
  });

  it('should give the health check command something that runs: the node -e script parses', () => {
    const check = of(final, 'HEALTHCHECK')[0];
    const json = check.slice(check.indexOf('['));
    const argv = JSON.parse(json) as string[];
    expect(argv.slice(0, 2)).toEqual(['node', '-e']);
    expect(() => new Function(argv[2])).not.toThrow();
  });
});
