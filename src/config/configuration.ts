/**
 * The service's configuration: every environment variable, validated once at start against a
 * class-validator schema into a typed object. A bad value stops the service with one line that
 * names the variable.
 */
import { plainToInstance } from 'class-transformer';
import { IsIn, IsOptional, Matches, validateSync } from 'class-validator';

/**
 * A MySQL database: `url` names one server; with several hosts in DATABASE_URL (a Galera
 * cluster), `nodes` holds one URL per node in the order given, and `url` is the first.
 */
export type DatabaseConfig =
  | { type: 'sqlite'; path: string }
  | { type: 'mysql'; url: string; database: string; nodes?: string[] };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface AppConfig {
  port: number;
  database: DatabaseConfig;
  /** Load demo data into an empty database at start. */
  demoData: boolean;
  logLevel: LogLevel;
  /** Human-readable logs instead of JSON lines. */
  prettyLogs: boolean;
  /** When set, every write needs `Authorization: Bearer <token>`. */
  apiToken?: string;
  /** Origins allowed by CORS: none when empty, `*` for any. */
  corsOrigins: string[];
  /** Seconds in-flight requests get to finish on SIGTERM. */
  shutdownTimeout: number;
  /** Seconds a client gets to send a request's headers (Node's `server.headersTimeout`). */
  headersTimeout: number;
  /** Seconds a client gets to send a whole request, body included (`server.requestTimeout`). */
  requestTimeout: number;
  /** Seconds an idle keep-alive connection stays open (`server.keepAliveTimeout`). */
  keepAliveTimeout: number;
  /** Time limit of one read statement on MySQL, in milliseconds; 0 for none. */
  queryTimeoutMs: number;
  /** Worker processes sharing the port (node:cluster); 1 serves from the one process. */
  webConcurrency: number;
  /** Express `trust proxy` setting, for scheme and client address behind a load balancer. */
  trustProxy: boolean;
  /** Whether index pages carry `count` and `total_pages` (a COUNT per request). */
  pageTotalCount: boolean;
  /** The same, by collection name, where `PAGE_TOTAL_COUNT_<COLLECTION>` sets it. */
  pageTotalCountOf: Record<string, boolean>;
  /** `GET /metrics` (Prometheus text format) and the measurements behind it. */
  metricsEnabled: boolean;
  /** When set, `/metrics` needs `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** OTLP/HTTP base URL: when set, request and SQL spans are exported there. */
  otlpEndpoint?: string;
  /** `service.name` of the exported spans. */
  otelServiceName: string;
  /** Read replicas of the MySQL primary (`DATABASE_REPLICA_URLS`); empty: every query to it. */
  replicas: ReplicaConfig;
  /** How long the response of a request with an Idempotency-Key is kept, in milliseconds. */
  idempotencyTtlMs: number;
  /** Whether a single-record write without If-Match is refused (428). */
  requireIfMatch: boolean;
  /** Whether a list's unknown query parameter, operator or ordering field is a 400 (else ignored). */
  strictQuery: boolean;
  /** The HTML pages of the browsable API for browsers; off, a browser gets JSON. */
  browsableApi: boolean;
  /**
   * `publicUrl`, the base of every absolute link when set (no
   * trailing slash); otherwise the Host names (`.suffix` for subdomains, `*` for any) a request
   * may carry, beside the machine's own names and addresses. `healthDetails`: /health/ready names
   * replicas and errors to anyone.
   */
  publicUrl?: string;
  allowedHosts: string[];
  healthDetails: boolean;
  /** Who may read and write: API_TOKEN, OpenID Connect tokens, scopes (rest/http/auth). */
  auth: AuthConfig;
  /** RATE_LIMIT and RATE_LIMIT_WRITES per client; REDIS_URL shares the counts. */
  rateLimits: RateLimitConfig;
  /** The change feed (docs/events.md). */
  events: EventsConfig;
}

export interface EventsConfig {
  /** EVENTS_ENABLED (default true): writes record events, the feed's routes serve them. */
  enabled: boolean;
  /** EVENTS_RETENTION (default 7d): how long events are kept, in milliseconds. */
  retentionMs: number;
  /**
   * A comment line to every open stream this often, in milliseconds: 10 000 (the contract asks
   * for at most 15 s). No variable sets it; a test may give a shorter one.
   */
  heartbeatMs: number;
  /**
   * Bytes a stream may have waiting unsent before it is closed: 1 MiB. No variable sets it; a
   * test may give a smaller one.
   */
  maxUnsentBytes: number;
}

export interface AuthConfig {
  /** `AUTH_ISSUER`: an OpenID Connect issuer; its discovery document names the JWKS. */
  issuer?: string;
  /** `AUTH_JWKS_URL`: the JWKS itself (with or without an issuer). */
  jwksUrl?: string;
  /** `AUTH_AUDIENCE`: the `aud` a token must carry (one of these). */
  audience: string[];
  /** `AUTH_READS=required`: reads need a read scope too. */
  readsRequired: boolean;
  /**
   * Milliseconds between two fetches of the JWKS for an unknown `kid`: 30 s. No variable sets
   * it; the tests of key rotation shorten it.
   */
  jwksCooldownMs?: number;
}

/** `600/60s`: so many requests per window. */
export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface RateLimitConfig {
  all?: RateLimit;
  writes?: RateLimit;
  /**
   * `REDIS_URL`: counts shared by every instance; unset, each instance counts alone. Unused
   * while no limit is set (compose's scale profile always sets it).
   */
  redisUrl?: string;
  /** Before every Redis key: `records:rate:`; tests give each run its own. */
  keyPrefix?: string;
  /** How long a Redis command may take before counting falls back: 500 ms (no variable; tests). */
  commandTimeoutMs?: number;
}

export interface ReplicaConfig {
  /** MySQL URLs of the replicas, in the order given. */
  urls: string[];
  /** Seconds after a client's last write during which its reads go to the primary; 0: never. */
  readAfterWrite: number;
  /** Seconds a replica may lag behind the primary and still serve reads. */
  maxLag: number;
}

export const DEFAULT_DATABASE_URL = 'sqlite:data/records.sqlite';

const FLAG = /^(true|false|1|0|yes|no|on|off)$/i;

/** `86400`, `90s`, `30m`, `24h`, `7d`: at least a second, at most 365 days. */
const DURATION = /^([1-9]\d{0,7})(s|m|h|d)?$/;
const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `600/60s`, `100/1m`, `5000/1h`: requests (1 to 10^9) per window (1 s to 1 day). */
const RATE = /^([1-9]\d{0,8})\/([1-9]\d{0,4})(s|m|h)$/;

const HTTP_URL = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;

/** The environment variables, with their rules (defaults are in `.env.example` and the README). */
class Environment {
  @IsOptional()
  @Matches(/^\d{1,5}$/, { message: 'must be a port number (1-65535)' })
  PORT?: string;

  @IsOptional()
  DATABASE_URL?: string;

  @IsOptional()
  @Matches(FLAG, { message: 'must be true or false' })
  DEMO_DATA?: string;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    message: 'must be one of fatal, error, warn, info, debug, trace, silent',
  })
  LOG_LEVEL?: string;

  @IsOptional()
  @IsIn(['json', 'pretty'], { message: 'must be json or pretty' })
  LOG_FORMAT?: string;

  @IsOptional()
  @Matches(/^\S{16,}$/, { message: 'must be at least 16 characters without spaces' })
  API_TOKEN?: string;

  @IsOptional()
  CORS_ORIGINS?: string;

  @IsOptional()
  @Matches(/^\d{1,4}$/, { message: 'must be a number of seconds' })
  SHUTDOWN_TIMEOUT?: string;

  @IsOptional()
  @Matches(/^([1-9]\d{0,3})$/, { message: 'must be a number of seconds (1-9999)' })
  HEADERS_TIMEOUT?: string;

  @IsOptional()
  @Matches(/^\d{1,4}$/, { message: 'must be a number of seconds (0 for no limit)' })
  REQUEST_TIMEOUT?: string;

  @IsOptional()
  @Matches(/^([1-9]\d{0,3})$/, { message: 'must be a number of seconds (1-9999)' })
  KEEP_ALIVE_TIMEOUT?: string;

  @IsOptional()
  @Matches(/^\d{1,7}$/, { message: 'must be a number of milliseconds (0 for no limit)' })
  QUERY_TIMEOUT_MS?: string;

  @IsOptional()
  @Matches(/^([1-9]|[1-5]\d|6[0-4])$/, { message: 'must be a number of processes from 1 to 64' })
  WEB_CONCURRENCY?: string;

  @IsOptional()
  @Matches(FLAG, { message: 'must be true or false' })
  TRUST_PROXY?: string;

  @IsOptional()
  @Matches(FLAG, { message: 'must be true or false' })
  PAGE_TOTAL_COUNT?: string;

  @IsOptional()
  DATABASE_REPLICA_URLS?: string;

  @IsOptional()
  @Matches(/^\d{1,4}(\.\d{1,3})?$/, { message: 'must be a number of seconds (0 for never)' })
  REPLICA_READ_AFTER_WRITE?: string;

  @IsOptional()
  @Matches(/^([1-9]\d{0,3})$/, { message: 'must be a whole number of seconds from 1 to 9999' })
  REPLICA_MAX_LAG?: string;

  @IsOptional()
  @Matches(FLAG, { message: 'must be true or false' })
  METRICS_ENABLED?: string;

  @IsOptional()
  @Matches(/^\S{16,}$/, { message: 'must be at least 16 characters without spaces' })
  METRICS_TOKEN?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'must be an http:// or https:// URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @IsOptional()
  @Matches(/^[\w.\-/:@]{1,128}$/, { message: 'must be a name (letters, digits, . - _ / : @)' })
  OTEL_SERVICE_NAME?: string;

  @IsOptional()
  @Matches(DURATION, { message: 'must be a duration: seconds, or a number with s, m, h or d' })
  IDEMPOTENCY_TTL?: string;

  @IsOptional()
  @Matches(FLAG, { message: 'must be true or false' })
  REQUIRE_IF_MATCH?: string;

  @IsOptional()
  @Matches(FLAG, { message: 'must be true or false' })
  STRICT_QUERY?: string;

  @IsOptional()
  @Matches(FLAG, { message: 'must be true or false' })
  EVENTS_ENABLED?: string;

  @IsOptional()
  @Matches(DURATION, { message: 'must be a duration: seconds, or a number with s, m, h or d' })
  EVENTS_RETENTION?: string;

  @IsOptional()
  @Matches(FLAG, { message: 'must be true or false' })
  BROWSABLE_API?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, {
    message: 'must be an http:// or https:// URL (host, port, path; no query)',
  })
  PUBLIC_URL?: string;

  @IsOptional()
  @Matches(
    /^\s*(\*|\.?[\w.-]+(:\d{1,5})?|\[[\da-f:.]+\](:\d{1,5})?)(\s*,\s*(\*|\.?[\w.-]+(:\d{1,5})?|\[[\da-f:.]+\](:\d{1,5})?))*\s*$/i,
    {
      message: 'must be comma-separated host names (host, host:port, .domain) or *',
    },
  )
  ALLOWED_HOSTS?: string;

  @IsOptional()
  @Matches(FLAG, { message: 'must be true or false' })
  HEALTH_DETAILS?: string;

  @IsOptional()
  @Matches(HTTP_URL, { message: 'must be an http:// or https:// URL (no query)' })
  AUTH_ISSUER?: string;

  @IsOptional()
  @Matches(HTTP_URL, { message: 'must be an http:// or https:// URL (no query)' })
  AUTH_JWKS_URL?: string;

  @IsOptional()
  @Matches(/^[^\s,]+(\s*,\s*[^\s,]+)*$/, {
    message: 'must be one audience or a comma-separated list',
  })
  AUTH_AUDIENCE?: string;

  @IsOptional()
  @IsIn(['required', 'open'], { message: 'must be required or open' })
  AUTH_READS?: string;

  @IsOptional()
  @Matches(RATE, { message: 'must be requests/window, such as 600/60s, 100/1m or 5000/1h' })
  RATE_LIMIT?: string;

  @IsOptional()
  @Matches(RATE, { message: 'must be requests/window, such as 60/60s, 10/1m or 500/1h' })
  RATE_LIMIT_WRITES?: string;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;
}

/** `PAGE_TOTAL_COUNT_MARBLES` and the like: one collection's count, by its name in capitals. */
const PAGE_TOTAL_COUNT_OF = /^PAGE_TOTAL_COUNT_(\w+)$/;

export class ConfigError extends Error {}

/**
 * The configuration from the environment. `collections` are the names of the collections the
 * service serves, which `PAGE_TOTAL_COUNT_<COLLECTION>` may name (unchecked when not given).
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  collections?: readonly string[],
  /** Whether stdout is a terminal: pretty logs there unless LOG_FORMAT says otherwise. */
  terminal = false,
): AppConfig {
  const vars = plainToInstance(Environment, pick(env));
  const problems = validateSync(vars).map(
    (e) =>
      `${e.property} ${Object.values(e.constraints ?? {})[0]}` +
      (SECRET.has(e.property) ? '' : `, got "${redact(String(e.value))}"`),
  );
  const pageTotalCountOf: Record<string, boolean> = {};
  for (const [name, value] of Object.entries(env)) {
    const collection = PAGE_TOTAL_COUNT_OF.exec(name)?.[1].toLowerCase();
    if (collection === undefined || !value) continue;
    if (collections && !collections.includes(collection)) {
      const known = collections.map((c) => `PAGE_TOTAL_COUNT_${c.toUpperCase()}`).join(', ');
      problems.push(`${name} names no collection (known: ${known})`);
    } else if (!FLAG.test(value)) {
      problems.push(`${name} must be true or false, got "${value}"`);
    } else {
      pageTotalCountOf[collection] = flag(value);
    }
  }
  if (env.EXTRA_COLLECTIONS) {
    // The tests' fixture collections (test/fixtures/): only the tests' own process serves them.
    problems.push('EXTRA_COLLECTIONS is for the tests only (npm run test:fixtures): unset it');
  }
  const prettyAvailable = canLoad('pino-pretty');
  if (vars.LOG_FORMAT === 'pretty' && !prettyAvailable) {
    problems.push('LOG_FORMAT pretty needs the pino-pretty package, a development dependency');
  }
  const port = Number(vars.PORT ?? '3000');
  if (!problems.some((p) => p.startsWith('PORT')) && (port < 1 || port > 65535)) {
    problems.push(`PORT must be a port number (1-65535), got "${vars.PORT}"`);
  }
  const ttl = DURATION.exec(vars.IDEMPOTENCY_TTL ?? '24h');
  const ttlSeconds = ttl ? Number(ttl[1]) * SECONDS[ttl[2] ?? 's'] : 0;
  if (ttl && ttlSeconds > 365 * 86400) {
    problems.push(`IDEMPOTENCY_TTL must be at most 365d, got "${vars.IDEMPOTENCY_TTL}"`);
  }
  const retention = DURATION.exec(vars.EVENTS_RETENTION ?? '7d');
  const retentionSeconds = retention ? Number(retention[1]) * SECONDS[retention[2] ?? 's'] : 0;
  if (retention && (retentionSeconds < 60 || retentionSeconds > 3650 * 86400)) {
    problems.push(`EVENTS_RETENTION must be from 60s to 3650d, got "${vars.EVENTS_RETENTION}"`);
  }
  const headersTimeout = Number(vars.HEADERS_TIMEOUT ?? '10');
  const requestTimeout = Number(vars.REQUEST_TIMEOUT ?? '20');
  // Node refuses a header limit longer than the whole request's (where that has one).
  const timeoutsValid = !problems.some((p) => /^(HEADERS|REQUEST)_TIMEOUT /.test(p));
  if (timeoutsValid && requestTimeout > 0 && headersTimeout > requestTimeout) {
    problems.push(
      `HEADERS_TIMEOUT must not exceed REQUEST_TIMEOUT (${requestTimeout}), got "${headersTimeout}"`,
    );
  }
  const database = parseDatabaseUrl(vars.DATABASE_URL || DEFAULT_DATABASE_URL);
  if (typeof database === 'string') problems.push(`DATABASE_URL ${database}`);
  const replicaUrls = (vars.DATABASE_REPLICA_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  if (replicaUrls.length > 0 && typeof database !== 'string' && database.type !== 'mysql') {
    problems.push('DATABASE_REPLICA_URLS needs a MySQL DATABASE_URL (replicas of its primary)');
  }
  if (replicaUrls.length > 0 && typeof database !== 'string' && database.type === 'mysql') {
    if (database.nodes) {
      problems.push(
        'DATABASE_REPLICA_URLS cannot be used with several nodes in DATABASE_URL (on a Galera ' +
          'cluster every node serves reads already)',
      );
    }
  }
  replicaUrls.forEach((raw, index) => {
    const replica = parseDatabaseUrl(raw);
    if (typeof replica === 'string') {
      problems.push(`DATABASE_REPLICA_URLS entry ${index + 1} ${replica}`);
    } else if (replica.type !== 'mysql') {
      problems.push(`DATABASE_REPLICA_URLS entry ${index + 1} must be a mysql:// URL`);
    } else {
      replicaUrls[index] = replica.url;
    }
  });
  const jwt = Boolean(vars.AUTH_ISSUER || vars.AUTH_JWKS_URL);
  if (jwt && !vars.AUTH_AUDIENCE) {
    problems.push(
      'AUTH_AUDIENCE must be set with AUTH_ISSUER or AUTH_JWKS_URL (the aud tokens carry)',
    );
  }
  if (vars.AUTH_AUDIENCE && !jwt) {
    problems.push('AUTH_AUDIENCE needs AUTH_ISSUER or AUTH_JWKS_URL (where the keys come from)');
  }
  if (vars.AUTH_READS === 'required' && !jwt && !vars.API_TOKEN) {
    problems.push('AUTH_READS=required needs API_TOKEN, AUTH_ISSUER or AUTH_JWKS_URL');
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}.`);
  const cors = (vars.CORS_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return {
    port,
    database: database as DatabaseConfig,
    demoData: flag(vars.DEMO_DATA ?? 'true'),
    logLevel: (vars.LOG_LEVEL ?? 'info') as LogLevel,
    prettyLogs:
      vars.LOG_FORMAT === 'pretty' ||
      (vars.LOG_FORMAT === undefined &&
        (terminal || env.NODE_ENV === 'development') &&
        prettyAvailable),
    apiToken: vars.API_TOKEN || undefined,
    corsOrigins: cors,
    shutdownTimeout: Number(vars.SHUTDOWN_TIMEOUT ?? '10'),
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: Number(vars.KEEP_ALIVE_TIMEOUT ?? '5'),
    queryTimeoutMs: Number(vars.QUERY_TIMEOUT_MS ?? '10000'),
    webConcurrency: Number(vars.WEB_CONCURRENCY ?? '1'),
    trustProxy: flag(vars.TRUST_PROXY ?? 'false'),
    pageTotalCount: flag(vars.PAGE_TOTAL_COUNT ?? 'true'),
    pageTotalCountOf,
    replicas: {
      urls: replicaUrls,
      readAfterWrite: Number(vars.REPLICA_READ_AFTER_WRITE ?? '2'),
      maxLag: Number(vars.REPLICA_MAX_LAG ?? '5'),
    },
    metricsEnabled: flag(vars.METRICS_ENABLED ?? 'true'),
    metricsToken: vars.METRICS_TOKEN || undefined,
    otlpEndpoint: vars.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
    otelServiceName: vars.OTEL_SERVICE_NAME || 'record-collections',
    idempotencyTtlMs: ttlSeconds * 1000,
    requireIfMatch: flag(vars.REQUIRE_IF_MATCH ?? 'false'),
    strictQuery: flag(vars.STRICT_QUERY ?? 'false'),
    browsableApi: flag(vars.BROWSABLE_API ?? 'true'),
    publicUrl: vars.PUBLIC_URL?.replace(/\/+$/, '') || undefined,
    allowedHosts: (vars.ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    healthDetails: flag(vars.HEALTH_DETAILS ?? 'false'),
    auth: {
      issuer: vars.AUTH_ISSUER || undefined,
      jwksUrl: vars.AUTH_JWKS_URL || undefined,
      audience: (vars.AUTH_AUDIENCE ?? '')
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
      readsRequired: vars.AUTH_READS === 'required',
    },
    rateLimits: {
      all: rate(vars.RATE_LIMIT),
      writes: rate(vars.RATE_LIMIT_WRITES),
      redisUrl: vars.REDIS_URL || undefined,
    },
    events: {
      enabled: flag(vars.EVENTS_ENABLED ?? 'true'),
      retentionMs: retentionSeconds * 1000,
      heartbeatMs: 10_000,
      maxUnsentBytes: 1024 * 1024,
    },
  };
}

function rate(raw: string | undefined): RateLimit | undefined {
  const match = raw ? RATE.exec(raw) : null;
  if (!match) return undefined;
  return { limit: Number(match[1]), windowSeconds: Number(match[2]) * SECONDS[match[3]] };
}

/** The variables `Environment` declares; an empty value counts as unset. */
export const ENVIRONMENT_VARIABLES = [
  'PORT',
  'DATABASE_URL',
  'DEMO_DATA',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'API_TOKEN',
  'CORS_ORIGINS',
  'SHUTDOWN_TIMEOUT',
  'HEADERS_TIMEOUT',
  'REQUEST_TIMEOUT',
  'KEEP_ALIVE_TIMEOUT',
  'QUERY_TIMEOUT_MS',
  'WEB_CONCURRENCY',
  'TRUST_PROXY',
  'PAGE_TOTAL_COUNT',
  'DATABASE_REPLICA_URLS',
  'REPLICA_READ_AFTER_WRITE',
  'REPLICA_MAX_LAG',
  'METRICS_ENABLED',
  'METRICS_TOKEN',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_SERVICE_NAME',
  'IDEMPOTENCY_TTL',
  'REQUIRE_IF_MATCH',
  'STRICT_QUERY',
  'EVENTS_ENABLED',
  'EVENTS_RETENTION',
  'BROWSABLE_API',
  'PUBLIC_URL',
  'ALLOWED_HOSTS',
  'HEALTH_DETAILS',
  'AUTH_ISSUER',
  'AUTH_JWKS_URL',
  'AUTH_AUDIENCE',
  'AUTH_READS',
  'RATE_LIMIT',
  'RATE_LIMIT_WRITES',
  'REDIS_URL',
] as const satisfies readonly (keyof Environment)[];

function pick(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ENVIRONMENT_VARIABLES) if (env[name]) out[name] = env[name]!;
  return out;
}

/** Variables whose values are never repeated in a message. */
const SECRET = new Set(['API_TOKEN', 'METRICS_TOKEN', 'REDIS_URL']);

function canLoad(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
}

function flag(raw: string): boolean {
  return /^(true|1|yes|on)$/i.test(raw);
}

/**
 * `scheme://userinfo@host1:port,host2:port/rest` (the libpq style of several hosts): the scheme,
 * what comes before the hosts, the hosts, and what follows them.
 */
const MULTI_HOST = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*@)?([^/?#]*,[^/?#]*)(.*)$/i;

/** The database a URL names, or a sentence saying what is wrong with it. */
export function parseDatabaseUrl(raw: string): DatabaseConfig | string {
  const multi = MULTI_HOST.exec(raw);
  if (multi) {
    const [, scheme, userinfo = '', hosts, rest] = multi;
    const urls = hosts.split(',').map((host) => `${scheme}${userinfo}${host.trim()}${rest}`);
    const nodes: string[] = [];
    for (const [index, url] of urls.entries()) {
      const host = hosts.split(',')[index].trim();
      if (!host) return `has an empty host in its list (node ${index + 1})`;
      const node = parseDatabaseUrl(url);
      if (typeof node === 'string') return `node ${index + 1} (${host}) ${node}`;
      if (node.type !== 'mysql') return 'may name several hosts for MySQL only';
      if (nodes.includes(node.url)) return `names ${host} twice`;
      nodes.push(node.url);
    }
    const first = parseDatabaseUrl(urls[0]) as Extract<DatabaseConfig, { type: 'mysql' }>;
    return { ...first, nodes };
  }
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    return path ? { type: 'sqlite', path } : 'must name a file: sqlite:path/to/file.sqlite';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `must be sqlite:<file> or mysql://user:password@host:3306/database, got "${redact(raw)}"`;
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    return `has unsupported scheme "${url.protocol}" (use sqlite: or mysql:)`;
  }
  const database = decodeURIComponent(url.pathname.slice(1));
  if (!database || database.includes('/')) {
    return 'must name a database: mysql://user:password@host:3306/database';
  }
  if (!url.hostname) return 'must name a host: mysql://user:password@host:3306/database';
  return {
    type: 'mysql',
    url: url.protocol === 'mariadb:' ? raw.replace(/^mariadb:/, 'mysql:') : raw,
    database,
  };
}

function redact(raw: string): string {
  return raw.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** The database for a log line: the URL without its password. */
export function describeDatabase(database: DatabaseConfig): string {
  if (database.type === 'sqlite') return `sqlite:${database.path}`;
  if (database.nodes) return database.nodes.map(redact).join(' ');
  return redact(database.url);
}
