/**
 * The container wiring, checked as text: docker-compose.yml (read by compose-file.ts, as compose
 * reads it) and the database-port override. No Docker needed; `docker-compose config -q` runs
 * too where that tool is installed. Safe by default: the passwords required from `.env`, no demo
 * rows unless asked, restarts that survive a reboot, no secret on a command line, ports that the
 * docs use for nothing else. The scale and cluster profiles are checked in
 * compose-profiles.spec.ts (the Galera nodes' start script in galera-start.spec.ts), the
 * Dockerfile and .dockerignore in dockerfile.spec.ts.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { ENVIRONMENT_VARIABLES, loadConfig } from '../../sources';
import {
  api,
  compose,
  db,
  envOf,
  loadCompose,
  mounts,
  PASSWORDS,
  serviceVariables,
} from './compose-file';
import { ROOT } from '../support/process';
import {
  DEFAULT_TEST_MYSQL_URL,
  TEST_DATABASE_PREFIX,
  databaseOf,
} from '../../../scripts/test-database';

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

  it("should check the database's health with the image's own healthcheck.sh: listening, InnoDB ready, no secret", () => {
    expect(db.healthcheck).toBeDefined();
    const check = db.healthcheck!;
    expect(check.disable).not.toBe(true);
    // The image's healthcheck user, its password in the datadir's .my-healthcheck.cnf; --connect
    // tells the real server from the entrypoint's first-start one (which listens on no port).
    expect(check.test).toEqual(['CMD', 'healthcheck.sh', '--connect', '--innodb_initialized']);
    expect(check.retries).toBeGreaterThanOrEqual(1);
    expect(check.interval).toMatch(/^\d+(ms|s|m)$/);
  });

  it('should put no password on any command line: no command, entrypoint or health check holds one', () => {
    const all = loadCompose('docker-compose.yml', {
      ...PASSWORDS,
      REPLICATION_PASSWORD: 'replication-password-in-dot-env',
    });
    const secrets = [...Object.values(PASSWORDS), 'replication-password-in-dot-env'];
    const lines = Object.entries(all.services).flatMap(([name, service]) =>
      [service.command, service.entrypoint, service.healthcheck?.test]
        .flat()
        .filter((part): part is string => typeof part === 'string')
        .map((part) => [name, part]),
    );
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.filter(([, part]) => secrets.some((secret) => part.includes(secret)))).toEqual([]);
    // Nor a shell command that would expand one into an argument (`--password="$$…"`).
    expect(lines.filter(([, part]) => /password|PASSWORD/.test(part))).toEqual([]);
  });

  it('should create the application database and user in the db service', () => {
    const env = envOf(db);
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
    const dbEnv = envOf(db);
    const url = new URL(envOf(api).DATABASE_URL);
    expect(url.protocol).toBe('mysql:');
    expect(url.hostname).toBe('db');
    expect(url.port === '' || url.port === '3306').toBe(true);
    expect(decodeURIComponent(url.username)).toBe(dbEnv.MYSQL_USER);
    expect(decodeURIComponent(url.password)).toBe(dbEnv.MYSQL_PASSWORD);
    expect(decodeURIComponent(url.pathname.slice(1))).toBe(dbEnv.MYSQL_DATABASE);
  });

  it('should publish port 3000 on 3000 and have the api listen there', () => {
    expect((api.ports ?? []).map(String)).toEqual(['3000:3000']);
    expect(envOf(api).PORT ?? '3000').toBe('3000');
  });

  it('should refuse to start without the database passwords, naming .env, and take them from there', () => {
    const refused = (env: Record<string, string>) => {
      try {
        loadCompose('docker-compose.yml', env);
        return 'started';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refused({})).toBe(
      'required variable MYSQL_PASSWORD is missing a value: set MYSQL_PASSWORD in .env (see .env.example)',
    );
    expect(refused({ MYSQL_PASSWORD: 'pw', MYSQL_ROOT_PASSWORD: '' })).toBe(
      'required variable MYSQL_ROOT_PASSWORD is missing a value: set MYSQL_ROOT_PASSWORD in .env (see .env.example)',
    );
    expect(refused(PASSWORDS)).toBe('started');
    // .env.example lists both, empty: a copy of it is refused until they are set.
    const example = parseEnv(readFileSync(join(ROOT, '.env.example'), 'utf8')) as Record<
      string,
      string
    >;
    expect([example.MYSQL_PASSWORD, example.MYSQL_ROOT_PASSWORD]).toEqual(['', '']);
    expect(refused(example)).toMatch(/^required variable MYSQL_PASSWORD is missing a value/);
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
    expect(envOf(setDb)).toEqual({
      MYSQL_DATABASE: 'shop',
      MYSQL_USER: 'shopper',
      MYSQL_PASSWORD: 's3cret-pw',
      MYSQL_ROOT_PASSWORD: 'r00t-pw',
    });
    expect(envOf(setApi).DATABASE_URL).toBe('mysql://shopper:s3cret-pw@db:3306/shop');
    // Unset or empty: the defaults of the names (the passwords have none).
    expect(envOf(db)).toEqual({
      MYSQL_DATABASE: 'records',
      MYSQL_USER: 'records',
      ...PASSWORDS,
    });
    expect(loadCompose('docker-compose.yml', { ...PASSWORDS, API_PORT: '' })).toEqual(compose);
    // The scale profile's services take the same credentials.
    const replica = envOf(set.services['db-replica']);
    expect(replica).toMatchObject({
      MYSQL_DATABASE: 'shop',
      MYSQL_USER: 'shopper',
      MYSQL_PASSWORD: 's3cret-pw',
      PRIMARY_ROOT_PASSWORD: 'r00t-pw',
    });
    expect(envOf(set.services['api-scaled'])).toMatchObject({
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
    const resolved = envOf(
      loadCompose('docker-compose.yml', { ...PASSWORDS, ...env }).services.api,
    );
    for (const name of served) {
      const expected =
        name === 'PORT' ? '3000' : name === 'DATABASE_URL' ? envOf(api).DATABASE_URL : env[name];
      expect([name, resolved[name]]).toEqual([name, expected]);
    }
    // And every variable the service reads, whether .env.example lists it or not.
    const all = Object.fromEntries(known.map((name) => [name, `value-of-${name}`]));
    const everything = envOf(
      loadCompose('docker-compose.yml', { ...PASSWORDS, ...all }).services.api,
    );
    for (const name of known) expect([name, everything[name]]).toEqual([name, all[name]]);
    // The profiles' instances get them too, with their own database URLs and TRUST_PROXY.
    for (const instance of ['api-scaled', 'api-cluster']) {
      const scaled = envOf(
        loadCompose('docker-compose.yml', { ...PASSWORDS, ...all }).services[instance],
      );
      for (const name of known.filter((n) => !['DATABASE_REPLICA_URLS', 'TRUST_PROXY'].includes(n)))
        expect([instance, name, scaled[name]]).toEqual([instance, name, all[name]]);
    }
  });

  it('should protect writes with the API_TOKEN of .env, and leave every unset variable at its default', () => {
    const token = 'a-token-of-32-characters-or-so!!';
    const env = parseEnv(`API_TOKEN=${token}\nCORS_ORIGINS=https://app.example\n`) as Record<
      string,
      string
    >;
    const config = loadConfig(
      envOf(loadCompose('docker-compose.yml', { ...PASSWORDS, ...env }).services.api),
    );
    expect(config.apiToken).toBe(token);
    expect(config.corsOrigins).toEqual(['https://app.example']);
    // Nothing set: what the service runs with is its own defaults, apart from compose's own.
    const defaults = loadConfig(envOf(api));
    const bare = loadConfig({ DATABASE_URL: envOf(api).DATABASE_URL, DEMO_DATA: 'false' });
    expect({ ...defaults }).toEqual({ ...bare });
  });

  it('should not publish the database port unless asked, and publish it on 127.0.0.1:DB_PORT with the override', () => {
    expect(db.ports).toBeUndefined();
    const byDefault = loadCompose('docker-compose.db-port.yml');
    expect(byDefault).toEqual({ services: { db: { ports: ['127.0.0.1:3306:3306'] } } });
    const chosen = loadCompose('docker-compose.db-port.yml', { DB_PORT: '13306' });
    expect(chosen.services.db.ports).toEqual(['127.0.0.1:13306:3306']);
  });

  it("should name the tests' own database in the port override's example, never another", () => {
    const text = readFileSync(join(ROOT, 'docker-compose.db-port.yml'), 'utf8');
    const named = [...text.matchAll(/TEST_MYSQL_URL="?(mysql:\/\/\S+?)"? /g)].map((m) => m[1]);
    expect(named).toHaveLength(1);
    const database = databaseOf(named[0].replace(/\$\w+/, 'pw'));
    expect(database).toBe(databaseOf(DEFAULT_TEST_MYSQL_URL));
    expect(database.startsWith(TEST_DATABASE_PREFIX)).toBe(true);
  });

  it('should restart every service unless stopped by hand, after a reboot too', () => {
    // on-failure:N left a stack stopped after a reboot (Docker restarts only `always` and
    // `unless-stopped` containers when it starts); Docker's own back-off (doubling, up to a minute)
    // keeps a service that cannot start from looping fast.
    expect(
      Object.entries(compose.services)
        .filter(([, service]) => service.restart !== 'unless-stopped')
        .map(([name, service]) => [name, service.restart]),
    ).toEqual([]);
  });

  it("should publish host ports that no example of the docs uses for something else (the development issuer's 9400)", () => {
    const published = Object.values(compose.services).flatMap((service) =>
      (service.ports ?? []).map((port) => String(port).split(':').at(-2)!),
    );
    // What each address of the README and docs/ is: one meaning per port.
    const meaning: Record<string, string> = {
      '3000': 'the API (API_PORT)',
      '3001': "the cluster profile's load balancer (CLUSTER_API_PORT)",
      '8080': "the scale profile's load balancer",
      '9400': 'the development issuer (npm run dev:issuer)',
      '4318': 'an OTLP collector',
    };
    expect(published.sort()).toEqual(['3000', '3001', '8080']);
    const issuer = JSON.parse(readFileSync(join(ROOT, 'scripts', 'dev-issuer.json'), 'utf8')) as {
      port: number;
    };
    expect(meaning[String(issuer.port)]).toBe('the development issuer (npm run dev:issuer)');
    const documents = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const used = new Set(
      documents.flatMap((file) =>
        [...readFileSync(join(ROOT, file), 'utf8').matchAll(/localhost:(\d+)/g)].map((m) => m[1]),
      ),
    );
    expect([...used].filter((port) => !(port in meaning))).toEqual([]);
  });

  it('should give every API service more time to stop than the default SHUTDOWN_TIMEOUT', () => {
    for (const name of ['api', 'api-scaled', 'api-cluster']) {
      const grace = /^(\d+)s$/.exec(compose.services[name].stop_grace_period ?? '10s')!;
      expect([name, Number(grace[1])]).toEqual([name, loadConfig({}).shutdownTimeout + 5]);
    }
  });

  it('should pass PUBLIC_URL and ALLOWED_HOSTS to every API service, unset by default', () => {
    for (const name of ['api', 'api-scaled', 'api-cluster']) {
      expect(envOf(compose.services[name])).toMatchObject({
        PUBLIC_URL: '',
        ALLOWED_HOSTS: '',
      });
      const set = loadCompose('docker-compose.yml', {
        ...PASSWORDS,
        PUBLIC_URL: 'https://records.example.com',
        ALLOWED_HOSTS: 'records.example.com',
      });
      const config = loadConfig(envOf(set.services[name]));
      expect([config.publicUrl, config.allowedHosts]).toEqual([
        'https://records.example.com',
        ['records.example.com'],
      ]);
    }
  });

  it('should load no demo data into any API service unless .env says DEMO_DATA=true', () => {
    const asked = loadCompose('docker-compose.yml', { ...PASSWORDS, DEMO_DATA: 'true' });
    for (const name of ['api', 'api-scaled', 'api-cluster']) {
      expect([name, loadConfig(envOf(compose.services[name])).demoData]).toEqual([name, false]);
      expect([name, loadConfig(envOf(asked.services[name])).demoData]).toEqual([name, true]);
    }
    // The service's own default (`npm start`, trying it) stays true.
    expect(loadConfig({}).demoData).toBe(true);
  });

  it('should only set variables the service knows, with valid values', () => {
    const known: string[] = [...ENVIRONMENT_VARIABLES, ...serviceVariables(), 'NODE_ENV'];
    const env = envOf(api);
    for (const name of Object.keys(env)) expect(known).toContain(name);
    // Validated the way the service validates them at start.
    const config = loadConfig(env);
    expect(config.database).toEqual({
      type: 'mysql',
      url: env.DATABASE_URL,
      database: envOf(db).MYSQL_DATABASE,
    });
    expect(config.port).toBe(3000);
    expect(config.demoData).toBe(false);
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
      env: { ...process.env, ...PASSWORDS },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
