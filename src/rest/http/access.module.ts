import {
  DynamicModule,
  Global,
  Inject,
  Logger,
  Module,
  OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import { RateLimiter, RateLimitSettings } from './rate-limit/rate-limiter';
import { AccessControl, AccessSettings } from './auth/access-control';

/**
 * Access control and rate limits as providers: `AccessControl` when a token of any kind is
 * configured, `RateLimiter` when a limit is; null otherwise (nothing is installed then). The
 * HTTP setup installs their middleware; readiness reads the limiter's state.
 */
@Global()
@Module({})
export class AccessModule implements OnModuleDestroy {
  constructor(@Optional() @Inject(RateLimiter) private readonly limiter: RateLimiter | null) {}

  static forRoot(access: AccessSettings, limits: RateLimitSettings): DynamicModule {
    const warn = (message: string) => new Logger('Access').warn(message);
    const logger = new Logger('RateLimits');
    return {
      module: AccessModule,
      providers: [
        {
          provide: AccessControl,
          useFactory: () =>
            AccessControl.configured(access) ? new AccessControl(access, warn) : null,
        },
        {
          provide: RateLimiter,
          useFactory: () =>
            RateLimiter.configured(limits)
              ? new RateLimiter(limits, {
                  warn: (m) => logger.warn(m),
                  info: (m) => logger.log(m),
                })
              : null,
        },
      ],
      exports: [AccessControl, RateLimiter],
    };
  }

  async onModuleDestroy(): Promise<void> {
    await this.limiter?.close();
  }
}
