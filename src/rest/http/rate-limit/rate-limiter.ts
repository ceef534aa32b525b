/**
 * Rate limits per client, as Express middleware: RATE_LIMIT counts every request, and
 * RATE_LIMIT_WRITES the writes alone (a write counts against both). A client is the `sub` of
 * its verified token, else its address: with TRUST_PROXY the last X-Forwarded-For entry, which
 * the nearest proxy wrote (the first ones are whatever the client sent, so it could pick a new
 * address for every request), else the connection's.
 * Past a limit the answer is 429 with `Retry-After`, in the negotiated format; every answer it
 * sees carries the IETF fields of draft-ietf-httpapi-ratelimit-headers-10, as structured-field
 * lists: `RateLimit-Policy: "all";q=600;w=60` and `RateLimit: "all";r=599;t=42`.
 *
 * With REDIS_URL every instance counts against one limit (RedisCounters); without, each
 * instance counts alone. A Redis that fails or stops answering (a command past COMMAND_TIMEOUT_MS)
 * does not stop the API: counting falls back to this instance, a warning is logged, readiness
 * says so, and a probe every PROBE_EVERY_MS goes back to Redis once it answers again.
 *
 * The health routes are not counted (an orchestrator's probes never meet a 429).
 */
import type { NextFunction, Request, Response } from 'express';
import Redis from 'ioredis';
import { ApiError } from '../response/api-error';
import { sendError } from '../response/respond';
import { API_TOKEN_ACTOR, principalOf } from '../auth/principal';
import { isWrite } from '../auth/access-rules';
import { Counters, Hit, LocalCounters, RedisCounters, secondsLeft } from './counters';

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface RateLimitSettings {
  /** RATE_LIMIT: every request. */
  all?: RateLimit;
  /** RATE_LIMIT_WRITES: writes alone. */
  writes?: RateLimit;
  /** REDIS_URL: one count for every instance. */
  redisUrl?: string;
  /** Before every Redis key (tests give each run its own). */
  keyPrefix?: string;
  /** How long a Redis command may take: COMMAND_TIMEOUT_MS unless a test on a loaded machine says. */
  commandTimeoutMs?: number;
  /**
   * TRUST_PROXY: a client without a token is the last address of X-Forwarded-For (the one the
   * nearest proxy saw), not the connection's.
   */
  trustProxy?: boolean;
}

/** What readiness tells of the counts. */
export interface RateLimitState {
  /** `redis`: shared by every instance; `instance`: this one alone. */
  counting: 'redis' | 'instance';
  /** With REDIS_URL, why it is not used just now. */
  problem?: string;
}

/** How long a Redis command may take before counting falls back to this instance. */
export const COMMAND_TIMEOUT_MS = 500;
/** How often a Redis that failed is tried again. */
export const PROBE_EVERY_MS = 1000;

interface Policy extends RateLimit {
  name: 'all' | 'writes';
  /** `"all";q=600;w=60`. */
  field: string;
}

const NOT_COUNTED = /^\/health(?:\/|$)/;

export class RateLimiter {
  private readonly all?: Policy;
  private readonly writes?: Policy;
  /** The RateLimit-Policy field: every policy of the service. */
  private readonly policyField: string;
  private readonly local = new LocalCounters();
  private readonly redis?: Redis;
  private readonly shared?: Counters;
  private problem?: string;
  private probe?: NodeJS.Timeout;
  private readonly trustProxy: boolean;
  private readonly commandTimeoutMs: number;
  /** The last error of Redis's connection (refused, unknown host, …), until it is ready again. */
  private connectionError?: Error & { code?: string };

  constructor(
    settings: RateLimitSettings,
    private readonly log: { warn(message: string): void; info(message: string): void },
  ) {
    const policy = (name: Policy['name'], limit?: RateLimit): Policy | undefined =>
      limit && { name, ...limit, field: `"${name}";q=${limit.limit};w=${limit.windowSeconds}` };
    this.trustProxy = settings.trustProxy ?? false;
    this.all = policy('all', settings.all);
    this.writes = policy('writes', settings.writes);
    this.policyField = [this.all, this.writes]
      .filter((p) => p !== undefined)
      .map((p) => p.field)
      .join(', ');
    this.commandTimeoutMs = settings.commandTimeoutMs ?? COMMAND_TIMEOUT_MS;
    if (settings.redisUrl) {
      this.redis = new Redis(settings.redisUrl, {
        // A command while disconnected fails at once (counted here) rather than waiting.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: this.commandTimeoutMs,
        connectTimeout: 2000,
        retryStrategy: (times) => Math.min(times * 200, 2000),
        lazyConnect: false,
      });
      // Failures are reported by the commands that meet them (a bare 'error' would crash); the
      // connection's own says why there is none.
      this.redis.on('error', (error: Error) => (this.connectionError = error));
      this.redis.on('ready', () => (this.connectionError = undefined));
      this.shared = new RedisCounters(this.redis, settings.keyPrefix ?? 'records:rate:');
    }
  }

  /** Whether any limit is set: without, no middleware is installed. */
  static configured(settings: RateLimitSettings): boolean {
    return settings.all !== undefined || settings.writes !== undefined;
  }

  state(): RateLimitState | undefined {
    if (!this.redis) return undefined;
    return this.problem ? { counting: 'instance', problem: this.problem } : { counting: 'redis' };
  }

  middleware() {
    return (req: Request, res: Response, next: NextFunction): void => {
      if (NOT_COUNTED.test(req.path)) return next();
      const write = isWrite(req.method);
      const policies: Policy[] = [];
      if (this.all) policies.push(this.all);
      if (write && this.writes) policies.push(this.writes);
      res.setHeader('RateLimit-Policy', this.policyField);
      if (policies.length === 0) return next();
      const principal = principalOf(req);
      // The static API_TOKEN is shared by its writers: they are told apart by address.
      const client =
        principal && principal.actor !== API_TOKEN_ACTOR
          ? `sub:${principal.actor}`
          : `ip:${this.addressOf(req)}`;
      const hits: Hit[] = policies.map((p) => ({
        policy: p.name,
        windowSeconds: p.windowSeconds,
        client,
      }));
      const now = Date.now();
      const answer = (counts: number[]) => this.answer(res, next, policies, counts, now);
      if (!this.shared || this.problem) return answer(this.local.hit(hits, now));
      (this.shared.hit(hits, now) as Promise<number[]>).then(answer, (error: Error) => {
        this.fallBack(error);
        answer(this.local.hit(hits, now));
      });
    };
  }

  /**
   * `extra` more writes of the request's client, counted after its body was read: a request of
   * atomic operations counts one write per operation, and the middleware counted the first. The
   * 429 to answer when that passes RATE_LIMIT_WRITES (the `RateLimit` field then says so), else
   * undefined. Without a writes limit, nothing is counted.
   */
  async countWrites(req: Request, res: Response, extra: number): Promise<ApiError | undefined> {
    const writes = this.writes;
    if (!writes || extra <= 0) return undefined;
    const principal = principalOf(req);
    const client =
      principal && principal.actor !== API_TOKEN_ACTOR
        ? `sub:${principal.actor}`
        : `ip:${this.addressOf(req)}`;
    const hit: Hit = { policy: writes.name, windowSeconds: writes.windowSeconds, client };
    const hits = Array.from({ length: extra }, () => hit);
    const now = Date.now();
    let counts: number[];
    if (!this.shared || this.problem) counts = this.local.hit(hits, now);
    else {
      try {
        counts = await this.shared.hit(hits, now);
      } catch (error) {
        this.fallBack(error as Error);
        counts = this.local.hit(hits, now);
      }
    }
    const count = Math.max(...counts.map(Number));
    const reset = secondsLeft(now, writes.windowSeconds);
    const field = `"${writes.name}";r=${Math.max(0, writes.limit - count)};t=${reset}`;
    const others = String(res.getHeader('RateLimit') ?? '')
      .split(', ')
      .filter((f) => f !== '' && !f.startsWith(`"${writes.name}"`));
    res.setHeader('RateLimit', [...others, field].join(', '));
    if (count <= writes.limit) return undefined;
    return new ApiError(
      429,
      `Too many writes: this client may send ${writes.limit} every ${writes.windowSeconds} s ` +
        `(each operation of a request counts); try again in ${reset} s.`,
      undefined,
      { 'Retry-After': String(reset) },
    );
  }

  private addressOf(req: Request): string | undefined {
    const forwarded = this.trustProxy ? req.headers['x-forwarded-for'] : undefined;
    if (typeof forwarded === 'string' && forwarded !== '') {
      return forwarded.slice(forwarded.lastIndexOf(',') + 1).trim();
    }
    return req.socket.remoteAddress;
  }

  private answer(
    res: Response,
    next: NextFunction,
    policies: Policy[],
    counts: number[],
    now: number,
  ): void {
    let over: Policy | undefined;
    let overReset = 0;
    const fields: string[] = [];
    policies.forEach((policy, i) => {
      const reset = secondsLeft(now, policy.windowSeconds);
      fields.push(`"${policy.name}";r=${Math.max(0, policy.limit - counts[i])};t=${reset}`);
      if (counts[i] > policy.limit && reset > overReset) {
        over = policy;
        overReset = reset;
      }
    });
    res.setHeader('RateLimit', fields.join(', '));
    if (!over) return next();
    const what = over.name === 'writes' ? 'writes' : 'requests';
    sendError(
      res,
      429,
      {
        message:
          `Too many ${what}: this client may send ${over.limit} every ${over.windowSeconds} s; ` +
          `try again in ${overReset} s.`,
      },
      { 'Retry-After': String(overReset) },
    );
  }

  /**
   * What went wrong with Redis, in the service's words rather than ioredis's ("Stream isn't
   * writeable and enableOfflineQueue options is false" means there is no connection).
   */
  private describe(error: Error): string {
    if (/timed out/i.test(error.message)) {
      return `Redis did not answer within ${this.commandTimeoutMs} ms`;
    }
    const connection = this.connectionError;
    if (this.redis!.status !== 'ready' || /writeable|connection is closed/i.test(error.message)) {
      return `no connection to Redis (${connection ? redisReason(connection) : 'the connection was closed'})`;
    }
    return `Redis refused the command (${redisReason(error)})`;
  }

  /** Redis failed: count here, say so once, and look for it again every PROBE_EVERY_MS. */
  private fallBack(error: Error): void {
    if (this.problem) return;
    this.problem = `${this.describe(error)}; each instance counts alone`;
    this.log.warn(`rate limits: ${this.problem}`);
    this.probe = setInterval(() => {
      this.redis!.ping().then(
        () => {
          if (!this.problem) return;
          this.problem = undefined;
          clearInterval(this.probe);
          this.log.info('rate limits: Redis answers again; counts are shared again');
        },
        () => undefined,
      );
    }, PROBE_EVERY_MS);
    this.probe.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.probe);
    if (this.redis) this.redis.disconnect();
  }
}

/** A Redis connection's or command's error in a few words. */
function redisReason(error: Error & { code?: string }): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ETIMEDOUT':
      return 'no answer when connecting';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
  }
  if (/^(WRONGPASS|NOAUTH)/.test(error.message)) return 'the password is refused';
  return error.message;
}
