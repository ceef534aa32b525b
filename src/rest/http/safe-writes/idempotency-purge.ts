import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { IdempotencyStore } from '../../sql/idempotency-store';

/** How often each instance deletes expired Idempotency-Keys (with some jitter). */
const EVERY_MS = 60_000;

/**
 * Deletes expired Idempotency-Keys in the background, in small batches, never in a request's
 * path. Every instance runs it; the deletes are short and harmless when they overlap.
 */
@Injectable()
export class IdempotencyPurge implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Idempotency');
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(private readonly store: IdempotencyStore) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.run(), EVERY_MS + Math.floor(Math.random() * 10_000));
    this.timer.unref();
  }

  /** One purge, unless the last one is still running. */
  run(): Promise<unknown> {
    this.running ??= this.store
      .purge()
      .then((deleted) => {
        if (deleted > 0) this.logger.debug(`${deleted} expired Idempotency-Keys deleted`);
      })
      .catch((error: unknown) => this.logger.warn(`purge failed: ${(error as Error).message}`))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
