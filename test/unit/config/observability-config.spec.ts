import { ConfigError, loadConfig } from '../../../src/config/configuration';
import { describeDatabase } from '../../../src/config/database-url';

describe('observability settings', () => {
  it('should serve metrics by default, without a token, and export no traces', () => {
    const config = loadConfig({});
    expect(config.metricsEnabled).toBe(true);
    expect(config.metricsToken).toBeUndefined();
    expect(config.otlpEndpoint).toBeUndefined();
    expect(config.otelServiceName).toBe('record-collections');
  });

  it('should read METRICS_ENABLED, METRICS_TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME', () => {
    const config = loadConfig({
      METRICS_ENABLED: 'false',
      METRICS_TOKEN: 't'.repeat(20),
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SERVICE_NAME: 'records-eu',
    });
    expect(config).toMatchObject({
      metricsEnabled: false,
      metricsToken: 't'.repeat(20),
      otlpEndpoint: 'http://collector:4318',
      otelServiceName: 'records-eu',
    });
  });

  it('should refuse a short METRICS_TOKEN without repeating it', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short-one' })).toThrow(
      new ConfigError(
        'Invalid configuration: METRICS_TOKEN must be at least 16 characters without spaces.',
      ),
    );
  });

  it('should refuse an OTLP endpoint that is not an http(s) URL', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      new ConfigError(
        'Invalid configuration: OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL, got "collector:4318".',
      ),
    );
  });
});

describe('LOG_FORMAT', () => {
  it('should be pretty in a terminal when unset, JSON in a pipe', () => {
    expect(loadConfig({}, undefined, true).prettyLogs).toBe(true);
    expect(loadConfig({}, undefined, false).prettyLogs).toBe(false);
  });

  it('should follow LOG_FORMAT when set, terminal or not', () => {
    expect(loadConfig({ LOG_FORMAT: 'json' }, undefined, true).prettyLogs).toBe(false);
    expect(loadConfig({ LOG_FORMAT: 'pretty' }, undefined, false).prettyLogs).toBe(true);
  });
});

describe('describeDatabase', () => {
  it('should hide the password of a MySQL URL', () => {
    expect(
      describeDatabase({
        type: 'mysql',
        url: 'mysql://app:s3cret@db:3306/records',
        database: 'records',
      }),
    ).toBe('mysql://app:***@db:3306/records');
    expect(
      describeDatabase({ type: 'mysql', url: 'mysql://root@db/records', database: 'records' }),
    ).toBe('mysql://root@db/records');
    expect(describeDatabase({ type: 'sqlite', path: 'data/records.sqlite' })).toBe(
      'sqlite:data/records.sqlite',
    );
  });
});
