import { loadConfig } from '../../../src/config/configuration';
import { expectRefused } from './refused';

describe('configuration: webhooks', () => {
  it('should time deliveries out at 15 s, retry on the standard schedule, keep a rotated secret 24 h, allow no private targets, deliver', () => {
    expect(loadConfig({}).webhooks).toEqual({
      timeoutMs: 15_000,
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      secretGraceMs: 86_400_000,
      allowPrivate: false,
      deliver: true,
    });
  });

  it('should read every variable', () => {
    expect(
      loadConfig({
        WEBHOOK_TIMEOUT: '500ms',
        WEBHOOK_RETRY_SCHEDULE: '1s, 30s,2m , 1d',
        WEBHOOK_SECRET_GRACE: '1h',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_DELIVERY: 'false',
      }).webhooks,
    ).toEqual({
      timeoutMs: 500,
      retryScheduleMs: [1_000, 30_000, 120_000, 86_400_000],
      secretGraceMs: 3_600_000,
      allowPrivate: true,
      deliver: false,
    });
  });

  it.each([
    [
      { WEBHOOK_TIMEOUT: 'soon' },
      'WEBHOOK_TIMEOUT must be a duration: 15s, 1m, or milliseconds as 500ms, got "soon"',
    ],
    [{ WEBHOOK_TIMEOUT: '10ms' }, 'WEBHOOK_TIMEOUT must be from 100ms to 5m, got "10ms"'],
    [{ WEBHOOK_TIMEOUT: '1h' }, 'WEBHOOK_TIMEOUT must be from 100ms to 5m, got "1h"'],
    [
      { WEBHOOK_RETRY_SCHEDULE: '5s,,5m' },
      'WEBHOOK_RETRY_SCHEDULE must be durations, comma-separated, such as 5s,5m,30m,2h, got "5s,,5m"',
    ],
    [
      { WEBHOOK_RETRY_SCHEDULE: '5s,8d' },
      'WEBHOOK_RETRY_SCHEDULE must be at most 20 delays of at most 7d each, got "5s,8d"',
    ],
    [{ WEBHOOK_SECRET_GRACE: '31d' }, 'WEBHOOK_SECRET_GRACE must be at most 30d, got "31d"'],
    [
      { WEBHOOK_ALLOW_PRIVATE: 'maybe' },
      'WEBHOOK_ALLOW_PRIVATE must be true or false, got "maybe"',
    ],
    [{ WEBHOOK_DELIVERY: 'never' }, 'WEBHOOK_DELIVERY must be true or false, got "never"'],
  ])('should refuse %j', (env, message) => {
    expectRefused(env, message);
  });
});
