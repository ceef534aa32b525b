/**
 * The service's configuration: every environment variable, validated once at start against a
 * class-validator schema into a typed object. A bad value stops the service with one line that
 * names the variable.
 */
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DURATION, Environment, FLAG, RATE, SECONDS, delayMs, flag, pick } from './environment';
import { DatabaseConfig, parseDatabaseUrl, redact } from './database-url';

/**
 * The change feed's heartbeat: a comment line to every open stream this often, in milliseconds
 * (the contract asks for at most 15 s). Every page and document that tells it quotes this one.
 */
export const HEARTBEAT_MS = 10_000;

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
  /** Most operations in one request of `POST /api/operations` (OPERATIONS_MAX, default 100). */
  operationsMax: number;
  /**
   * REFUSED_BODY_RATE (20/1s): how many bodies refused while they arrive one peer gets answered
   * at once; past it, each waits its turn (src/rest/http/request/refusal-pace.ts).
   */
  refusedBodyRate: RateLimit;
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
  /** `CLUSTER_READS` on a Galera cluster: which reads wait for the node to catch up (galera.ts). */
  clusterReads: 'causal' | 'after-write';
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
  /** Webhooks: the change feed delivered (docs/webhooks.md). */
  webhooks: WebhooksConfig;
}

export interface WebhooksConfig {
  /** WEBHOOK_TIMEOUT (default 15s): how long a delivery may take to be answered, in ms. */
  timeoutMs: number;
  /** WEBHOOK_RETRY_SCHEDULE (default 5s,5m,30m,2h,5h,10h,10h): the delays before each retry, in ms. */
  retryScheduleMs: number[];
  /** WEBHOOK_SECRET_GRACE (default 24h): how long a rotated secret still signs, in ms. */
  secretGraceMs: number;
  /** WEBHOOK_ALLOW_PRIVATE (default false): http and loopback or private addresses allowed. */
  allowPrivate: boolean;
  /**
   * WEBHOOK_DELIVERY (default true): this instance delivers subscriptions. `false`: it serves
   * /api/webhooks and writes, and leaves every delivery to the instances that deliver.
   */
  deliver: boolean;
  /** Leases, saves and polls (webhooks/dispatcher.ts): no variable sets them; tests shorten them. */
  timing?: Partial<{ leaseMs: number; tickMs: number; saveEveryMs: number; pollMs: number }>;
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
  /**
   * `AUTH_JWKS_MAX_AGE` (default 10m), in milliseconds: how old the issuer's keys may be when a
   * token is checked, and how long a verified token is remembered at most. A key removed from
   * the JWKS stops verifying any token within this (rest/http/auth/jwt-verifier.ts). Unset (a
   * test's own configuration), the verifier's default, the same 10 minutes.
   */
  jwksMaxAgeMs?: number;
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
    problems.push('EXTRA_COLLECTIONS is for the tests only: unset it');
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
  const jwksMaxAge = DURATION.exec(vars.AUTH_JWKS_MAX_AGE ?? '10m');
  const jwksMaxAgeSeconds = jwksMaxAge ? Number(jwksMaxAge[1]) * SECONDS[jwksMaxAge[2] ?? 's'] : 0;
  if (jwksMaxAge && jwksMaxAgeSeconds > 86400) {
    problems.push(`AUTH_JWKS_MAX_AGE must be at most 1d, got "${vars.AUTH_JWKS_MAX_AGE}"`);
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
  const webhookTimeout = delayMs(vars.WEBHOOK_TIMEOUT ?? '15s');
  if (webhookTimeout < 100 || webhookTimeout > 300_000) {
    problems.push(`WEBHOOK_TIMEOUT must be from 100ms to 5m, got "${vars.WEBHOOK_TIMEOUT}"`);
  }
  const schedule = (vars.WEBHOOK_RETRY_SCHEDULE ?? '5s,5m,30m,2h,5h,10h,10h')
    .split(',')
    .map((d) => delayMs(d));
  const scheduleChecked = !problems.some((p) => p.startsWith('WEBHOOK_RETRY_SCHEDULE'));
  if (scheduleChecked && (schedule.length > 20 || schedule.some((ms) => !(ms <= 7 * 86_400_000)))) {
    problems.push(
      `WEBHOOK_RETRY_SCHEDULE must be at most 20 delays of at most 7d each, got "${vars.WEBHOOK_RETRY_SCHEDULE}"`,
    );
  }
  const grace = DURATION.exec(vars.WEBHOOK_SECRET_GRACE ?? '24h');
  const graceSeconds = grace ? Number(grace[1]) * SECONDS[grace[2] ?? 's'] : 0;
  if (grace && graceSeconds > 30 * 86400) {
    problems.push(`WEBHOOK_SECRET_GRACE must be at most 30d, got "${vars.WEBHOOK_SECRET_GRACE}"`);
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
    operationsMax: Number(vars.OPERATIONS_MAX ?? '100'),
    refusedBodyRate: rate(vars.REFUSED_BODY_RATE ?? '20/1s') as RateLimit,
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
    clusterReads: vars.CLUSTER_READS === 'after-write' ? 'after-write' : 'causal',
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
      jwksMaxAgeMs: jwksMaxAgeSeconds * 1000,
    },
    rateLimits: {
      all: rate(vars.RATE_LIMIT),
      writes: rate(vars.RATE_LIMIT_WRITES),
      redisUrl: vars.REDIS_URL || undefined,
    },
    events: {
      enabled: flag(vars.EVENTS_ENABLED ?? 'true'),
      retentionMs: retentionSeconds * 1000,
      heartbeatMs: HEARTBEAT_MS,
      maxUnsentBytes: 1024 * 1024,
    },
    webhooks: {
      timeoutMs: webhookTimeout,
      retryScheduleMs: schedule,
      secretGraceMs: graceSeconds * 1000,
      allowPrivate: flag(vars.WEBHOOK_ALLOW_PRIVATE ?? 'false'),
      deliver: flag(vars.WEBHOOK_DELIVERY ?? 'true'),
    },
  };
}

function rate(raw: string | undefined): RateLimit | undefined {
  const match = raw ? RATE.exec(raw) : null;
  if (!match) return undefined;
  return { limit: Number(match[1]), windowSeconds: Number(match[2]) * SECONDS[match[3]] };
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
