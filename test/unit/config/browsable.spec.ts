import { loadConfig } from '../../../src/config/configuration';

describe('configuration: BROWSABLE_API', () => {
  it('should serve the HTML pages by default', () => {
    expect(loadConfig({}).browsableApi).toBe(true);
  });

  it('should read BROWSABLE_API as a flag and refuse anything else', () => {
    expect(loadConfig({ BROWSABLE_API: 'false' }).browsableApi).toBe(false);
    expect(loadConfig({ BROWSABLE_API: 'off' }).browsableApi).toBe(false);
    expect(loadConfig({ BROWSABLE_API: 'true' }).browsableApi).toBe(true);
    expect(() => loadConfig({ BROWSABLE_API: 'html' })).toThrow(
      'Invalid configuration: BROWSABLE_API must be true or false, got "html".',
    );
  });
});
