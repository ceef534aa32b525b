import { ConfigError, loadConfig } from '../../../src/config/configuration';

describe('safe-write settings: idempotency retention and REQUIRE_IF_MATCH', () => {
  it('should keep idempotent responses 24 hours and not require If-Match by default', () => {
    const config = loadConfig({});
    expect(config.idempotencyTtlMs).toBe(24 * 3600 * 1000);
    expect(config.requireIfMatch).toBe(false);
  });

  it.each([
    ['86400', 86400],
    ['90s', 90],
    ['30m', 1800],
    ['24h', 86400],
    ['7d', 7 * 86400],
    ['365d', 365 * 86400],
  ])('should read IDEMPOTENCY_TTL=%s as %i seconds', (value, seconds) => {
    expect(loadConfig({ IDEMPOTENCY_TTL: value }).idempotencyTtlMs).toBe(seconds * 1000);
  });

  it.each(['0', '-1', '1.5h', '24 h', 'h', '10w', '366d'])(
    'should refuse IDEMPOTENCY_TTL=%s at start, naming the variable',
    (value) => {
      expect(() => loadConfig({ IDEMPOTENCY_TTL: value })).toThrow(ConfigError);
      expect(() => loadConfig({ IDEMPOTENCY_TTL: value })).toThrow(/IDEMPOTENCY_TTL/);
    },
  );

  it('should read REQUIRE_IF_MATCH as a flag and refuse anything else', () => {
    expect(loadConfig({ REQUIRE_IF_MATCH: 'true' }).requireIfMatch).toBe(true);
    expect(loadConfig({ REQUIRE_IF_MATCH: 'off' }).requireIfMatch).toBe(false);
    expect(() => loadConfig({ REQUIRE_IF_MATCH: 'maybe' })).toThrow(/REQUIRE_IF_MATCH/);
  });

  it('should read STRICT_QUERY as a flag, off by default, and refuse anything else', () => {
    expect(loadConfig({}).strictQuery).toBe(false);
    expect(loadConfig({ STRICT_QUERY: 'true' }).strictQuery).toBe(true);
    expect(() => loadConfig({ STRICT_QUERY: 'yes please' })).toThrow(/STRICT_QUERY/);
  });
});
