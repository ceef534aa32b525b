import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { ApiError } from '../rest/http/api-error';

@Controller('health')
@ApiTags('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  /** The process is up and serving. */
  @Get('live')
  live() {
    return { status: 'ok' };
  }

  /** The database answers: 503 otherwise, so a load balancer stops sending traffic. */
  @Get('ready')
  async ready() {
    try {
      return await this.health.check([
        () => this.database.pingCheck('database', { timeout: 2000 }),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      throw new ApiError(503, 'The database is unreachable.', undefined, { 'Retry-After': '5' });
    }
  }
}
