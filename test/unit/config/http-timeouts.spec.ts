import { loadConfig } from '../../../src/config/configuration';

describe('HEADERS_TIMEOUT, REQUEST_TIMEOUT, KEEP_ALIVE_TIMEOUT', () => {
  it('should default to 10 s for headers, 20 s for a whole request and 5 s of keep-alive', () => {
    expect(loadConfig({})).toMatchObject({
      headersTimeout: 10,
      requestTimeout: 20,
      keepAliveTimeout: 5,
    });
  });

  it('should take values in seconds', () => {
    expect(
      loadConfig({ HEADERS_TIMEOUT: '4', REQUEST_TIMEOUT: '60', KEEP_ALIVE_TIMEOUT: '65' }),
    ).toMatchObject({ headersTimeout: 4, requestTimeout: 60, keepAliveTimeout: 65 });
  });

  it('should allow REQUEST_TIMEOUT=0 (no limit on the whole request) with any header limit', () => {
    expect(loadConfig({ HEADERS_TIMEOUT: '120', REQUEST_TIMEOUT: '0' })).toMatchObject({
      headersTimeout: 120,
      requestTimeout: 0,
    });
  });

  it('should refuse a header limit longer than the request limit, naming both', () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT: '30', REQUEST_TIMEOUT: '20' })).toThrow(
      'Invalid configuration: HEADERS_TIMEOUT must not exceed REQUEST_TIMEOUT (20), got "30".',
    );
  });

  it.each([
    ['HEADERS_TIMEOUT', '0', 'must be a number of seconds (1-9999), got "0"'],
    ['KEEP_ALIVE_TIMEOUT', '0', 'must be a number of seconds (1-9999), got "0"'],
    ['REQUEST_TIMEOUT', '1.5', 'must be a number of seconds (0 for no limit), got "1.5"'],
  ])('should refuse %s=%s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(
      `Invalid configuration: ${name} ${message}.`,
    );
  });
});
