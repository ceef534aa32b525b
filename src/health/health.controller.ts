import { createHash, timingSafeEqual } from 'node:crypto';
import {
  Controller,
  Get,
  Headers,
  Inject,
  Optional,
  ServiceUnavailableException,
} from '@nestjs/common';
import {
  HealthCheckService,
  HealthIndicatorFunction,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/configuration';
import { ApiError } from '../rest/http/response/api-error';
import { PlainOperation } from '../rest/http/openapi/openapi';
import { Schema } from '../rest/http/openapi/openapi-schemas';
import { ClusterStatus, SqlDatabase } from '../rest/db/sql-database';
import { RateLimiter } from '../rest/http/rate-limit/rate-limiter';
import { AccessControl } from '../rest/http/auth/access-control';

const TAG = { name: 'health', description: 'Probes for a load balancer or an orchestrator.' };

/** How long readiness waits for the issuer when it asks it again (as for the database's ping). */
const ISSUER_WAIT_MS = 2000;

const STATUS: Schema = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string' } },
};

/** What terminus answers: the status and the state of each indicator. */
const READY: Schema = {
  type: 'object',
  required: ['status', 'info', 'error', 'details'],
  properties: {
    status: { type: 'string', enum: ['ok'] },
    info: { type: 'object', additionalProperties: STATUS },
    error: { type: 'object', additionalProperties: STATUS },
    details: { type: 'object', additionalProperties: STATUS },
  },
  xml: { name: 'hash' },
};
import { Lifecycle } from './lifecycle';
import { READINESS_DETAILS, ReadinessDetails } from './readiness';

@Controller('health')
export class HealthController {
  /** The digest of the metrics token, which also opens the replicas' details. */
  private readonly detailsToken?: Buffer;

  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly sql: SqlDatabase,
    private readonly lifecycle: Lifecycle,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(RateLimiter) private readonly limiter: RateLimiter | null = null,
    @Optional() @Inject(AccessControl) private readonly access: AccessControl | null = null,
    @Optional() @Inject(READINESS_DETAILS) private readonly extra: ReadinessDetails | null = null,
  ) {
    if (config.metricsToken) this.detailsToken = digest(config.metricsToken);
  }

  /**
   * Whether the answer may name the replicas and their errors: with HEALTH_DETAILS, or for the
   * bearer of the metrics token (compared in constant time). Others get a status and counts.
   */
  private showDetails(authorization: string | undefined): boolean {
    if (this.config.healthDetails) return true;
    if (!this.detailsToken) return false;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return !!match && timingSafeEqual(digest(match[1]), this.detailsToken);
  }

  /**
   * On a Galera cluster the database is up while some node may take writes (TypeORM's own ping
   * would ask the one node it connected to at the start). The nodes and the writer are told
   * beside it, to those allowed to see them; others get the counts.
   */
  private clusterCheck(cluster: ClusterStatus, details: boolean) {
    const synced = cluster.nodes.filter((n) => n.state === 'synced').length;
    const shown = details
      ? { writer: cluster.writer, nodes: cluster.nodes }
      : { synced, nodes: cluster.nodes.length };
    const database = this.indicators.check('database');
    return cluster.writer ? database.up({ cluster: shown }) : database.down({ cluster: shown });
  }

  /** The process is up and serving. */
  @Get('live')
  @PlainOperation({
    tag: TAG,
    operationId: 'live',
    summary: 'The process is up',
    write: false,
    offline: true,
    success: [
      200,
      {
        description: '`{"status": "ok"}`.',
        schema: { ...STATUS, properties: { status: { type: 'string', enum: ['ok'] } } },
        example: { status: 'ok' },
      },
    ],
  })
  live() {
    return { status: 'ok' };
  }

  /**
   * The database answers and the process is not stopping: 503 otherwise, so a load balancer
   * stops sending traffic. With read replicas, the body also tells where each stands; a replica
   * that is down or behind does not make the service unready (its reads go to the primary).
   * Their addresses and errors only for those allowed to see them; others get their number.
   */
  @Get('ready')
  @PlainOperation({
    tag: TAG,
    operationId: 'ready',
    summary: 'The database answers',
    description:
      'A 503 with `Retry-After` when it does not, and a 503 once the service is stopping.',
    write: false,
    success: [
      200,
      {
        description: 'The database is up.',
        schema: READY,
        example: {
          status: 'ok',
          info: { database: { status: 'up' } },
          error: {},
          details: { database: { status: 'up' } },
        },
      },
    ],
  })
  async ready(@Headers('authorization') authorization?: string) {
    if (this.lifecycle.draining) throw new ApiError(503, 'The service is shutting down.');
    const cluster = this.sql.clusterStatus?.();
    const checks: HealthIndicatorFunction[] = [
      cluster
        ? () => this.clusterCheck(cluster, this.showDetails(authorization))
        : () => this.database.pingCheck('database', { timeout: 2000 }),
    ];
    const replicas = this.sql.replicaStatuses?.() ?? [];
    if (replicas.length > 0) {
      const serving = replicas.filter((r) => r.in_rotation).length;
      const servers = this.showDetails(authorization) ? replicas : replicas.length;
      checks.push(() => this.indicators.check('replicas').up({ in_rotation: serving, servers }));
    }
    // With REDIS_URL: where the rate limits count. A Redis away leaves the service ready (each
    // instance then counts alone), and says so.
    const limits = this.limiter?.state();
    if (limits) checks.push(() => this.indicators.check('rate_limits').up({ ...limits }));
    // With AUTH_ISSUER or AUTH_JWKS_URL: whether the issuer answers. One away leaves the service
    // ready too, and says so: every instance meets the same issuer, so a 503 here would take
    // them all out of the balancer, reads and verified tokens with them, where only tokens not
    // verified before are refused (503, Retry-After). docs/access-control.md says why.
    const verifier = this.access?.verifier;
    if (verifier) {
      checks.push(async () =>
        this.indicators.check('issuer').up({ ...(await verifier.issuerState(ISSUER_WAIT_MS)) }),
      );
    }
    // The webhooks, where there are any: their numbers and how far behind, never a reason to
    // be unready.
    const extra = this.extra;
    const told = extra && (await extra.details().catch(() => ({ state: 'unknown' })));
    if (extra && told) checks.push(() => this.indicators.check(extra.name).up(told));
    try {
      return await this.health.check(checks);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      throw new ApiError(503, 'The database is unreachable.', undefined, { 'Retry-After': '5' });
    }
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
