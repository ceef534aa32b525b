import { ConfigError, loadConfig } from '../../../src/config/configuration';
import { expectRefused } from './refused';

describe('public URL, allowed hosts and health details settings', () => {
  it("should set no public URL, allow only the machine's own names and hide health details by default", () => {
    const config = loadConfig({});
    expect([config.publicUrl, config.allowedHosts, config.healthDetails]).toEqual([
      undefined,
      [],
      false,
    ]);
  });

  it.each([
    ['https://api.example.com', 'https://api.example.com'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['http://api.example.com:8080/records/', 'http://api.example.com:8080/records'],
  ])('should read PUBLIC_URL=%s as %s', (value, url) => {
    expect(loadConfig({ PUBLIC_URL: value }).publicUrl).toBe(url);
  });

  it.each(['api.example.com', 'ftp://x.example', 'https://x.example/?a=1', 'https://u@x.example'])(
    'should refuse PUBLIC_URL=%s at start, naming the variable',
    (value) => {
      expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(ConfigError);
      expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(/PUBLIC_URL must be an http/);
    },
  );

  it('should read ALLOWED_HOSTS as a list of lower-case names, and refuse what is not one', () => {
    expect(
      loadConfig({ ALLOWED_HOSTS: 'API.example.com, api.example.com:8443,.example.org' })
        .allowedHosts,
    ).toEqual(['api.example.com', 'api.example.com:8443', '.example.org']);
    expect(loadConfig({ ALLOWED_HOSTS: '*' }).allowedHosts).toEqual(['*']);
    for (const value of ['http://x.example', 'a b', 'x.example/path']) {
      expect(() => loadConfig({ ALLOWED_HOSTS: value })).toThrow(/ALLOWED_HOSTS must be/);
    }
  });

  it('should read HEALTH_DETAILS as a flag', () => {
    expect(loadConfig({ HEALTH_DETAILS: 'true' }).healthDetails).toBe(true);
    expect(() => loadConfig({ HEALTH_DETAILS: 'maybe' })).toThrow(/HEALTH_DETAILS/);
  });

  it('should answer 20 refused bodies a second per client by default, and read REFUSED_BODY_RATE', () => {
    expect(loadConfig({}).refusedBodyRate).toEqual({ limit: 20, windowSeconds: 1 });
    expect(loadConfig({ REFUSED_BODY_RATE: '600/1m' }).refusedBodyRate).toEqual({
      limit: 600,
      windowSeconds: 60,
    });
    expectRefused(
      { REFUSED_BODY_RATE: '20' },
      'REFUSED_BODY_RATE must be refused bodies/window, such as 20/1s, 600/1m or 5000/1h, got "20"',
    );
  });
});
