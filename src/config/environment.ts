/**
 * The environment variables the service reads, each with its rule (class-validator decorators on
 * Environment), and the value patterns configuration.ts reads them with again.
 */
import { IsIn, IsOptional, Matches } from 'class-validator';

export const FLAG = /^(true|false|1|0|yes|no|on|off)$/i;

/** `86400`, `90s`, `30m`, `24h`, `7d`: at least a second, at most 365 days. */
export const DURATION = /^([1-9]\d{0,7})(s|m|h|d)?$/;
export const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** A webhook's delays: `500ms`, `5s`, `5m`, `2h`, `1d` (a bare number is seconds). */
export const DELAY = /^(\d{1,7})(ms|s|m|h|d)?$/;

/** WEBHOOK_RETRY_SCHEDULE: delays, comma-separated (`5s,5m,30m,2h,5h,10h,10h`). */
const DELAYS = /^\s*\d{1,7}(ms|s|m|h|d)?(\s*,\s*\d{1,7}(ms|s|m|h|d)?)*\s*$/;

/** `600/60s`, `100/1m`, `5000/1h`: requests (1 to 10^9) per window (1 s to 1 day). */
export const RATE = /^([1-9]\d{0,8})\/([1-9]\d{0,4})(s|m|h)$/;

const HTTP_URL = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;

/** The environment variables, with their rules (defaults are in `.env.example` and the README). */
export class Environment {
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
  @Matches(/^([1-9]\d{0,2}|1000)$/, { message: 'must be a number of operations from 1 to 1000' })
  OPERATIONS_MAX?: string;

  @IsOptional()
  @Matches(RATE, { message: 'must be refused bodies/window, such as 20/1s, 600/1m or 5000/1h' })
  REFUSED_BODY_RATE?: string;

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
  @IsIn(['causal', 'after-write'], { message: 'must be causal or after-write' })
  CLUSTER_READS?: string;

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
  @Matches(DURATION, { message: 'must be a duration: seconds, or a number with s, m, h or d' })
  AUTH_JWKS_MAX_AGE?: string;

  @IsOptional()
  @Matches(RATE, { message: 'must be requests/window, such as 600/60s, 100/1m or 5000/1h' })
  RATE_LIMIT?: string;

  @IsOptional()
  @Matches(RATE, { message: 'must be requests/window, such as 60/60s, 10/1m or 500/1h' })
  RATE_LIMIT_WRITES?: string;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @IsOptional()
  @Matches(DELAY, { message: 'must be a duration: 15s, 1m, or milliseconds as 500ms' })
  WEBHOOK_TIMEOUT?: string;

  @IsOptional()
  @Matches(DELAYS, { message: 'must be durations, comma-separated, such as 5s,5m,30m,2h' })
  WEBHOOK_RETRY_SCHEDULE?: string;

  @IsOptional()
  @Matches(DURATION, { message: 'must be a duration: seconds, or a number with s, m, h or d' })
  WEBHOOK_SECRET_GRACE?: string;

  @IsOptional()
  @Matches(FLAG, { message: 'must be true or false' })
  WEBHOOK_ALLOW_PRIVATE?: string;

  @IsOptional()
  @Matches(FLAG, { message: 'must be true or false' })
  WEBHOOK_DELIVERY?: string;
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
  'OPERATIONS_MAX',
  'REFUSED_BODY_RATE',
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
  'CLUSTER_READS',
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
  'AUTH_JWKS_MAX_AGE',
  'RATE_LIMIT',
  'RATE_LIMIT_WRITES',
  'REDIS_URL',
  'WEBHOOK_TIMEOUT',
  'WEBHOOK_RETRY_SCHEDULE',
  'WEBHOOK_SECRET_GRACE',
  'WEBHOOK_ALLOW_PRIVATE',
  'WEBHOOK_DELIVERY',
] as const satisfies readonly (keyof Environment)[];

/** The declared variables of `env` that are set. */
export function pick(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ENVIRONMENT_VARIABLES) if (env[name]) out[name] = env[name]!;
  return out;
}

/** A flag's value (FLAG) as a boolean. */
export function flag(raw: string): boolean {
  return /^(true|1|yes|on)$/i.test(raw);
}

/** A DELAY (`500ms`, `5s`, `2h`) in milliseconds. */
export function delayMs(raw: string): number {
  const match = DELAY.exec(raw.trim());
  if (!match) return NaN;
  return match[2] === 'ms' ? Number(match[1]) : Number(match[1]) * SECONDS[match[2] ?? 's'] * 1000;
}
