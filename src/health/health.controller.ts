import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  HealthCheckService,
  HealthIndicatorFunction,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { ApiError } from '../rest/http/api-error';
import { SqlDatabase } from '../rest/sql/port';

@Controller('health')
@ApiTags('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly sql: SqlDatabase,
  ) {}

  /** The process is up and serving. */
  @Get('live')
  live() {
    return { status: 'ok' };
  }

  /**
   * The database answers: 503 otherwise, so a load balancer stops sending traffic. With read
   * replicas, the body also tells where each stands; a replica that is down or behind does not
   * make the service unready (its reads go to the primary).
   */
  @Get('ready')
  async ready() {
    const checks: HealthIndicatorFunction[] = [
      () => this.database.pingCheck('database', { timeout: 2000 }),
    ];
    const replicas = this.sql.replicaStatuses?.() ?? [];
    if (replicas.length > 0) {
      const serving = replicas.filter((r) => r.in_rotation).length;
      checks.push(() =>
        this.indicators.check('replicas').up({ in_rotation: serving, servers: replicas }),
      );
    }
    try {
      return await this.health.check(checks);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      throw new ApiError(503, 'The database is unreachable.', undefined, { 'Retry-After': '5' });
    }
  }
}
