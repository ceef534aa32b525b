/**
 * What every refused configuration shows: loadConfig throws a ConfigError of one line, that
 * line is `Invalid configuration: <problem>.`, and no password (`secret` in the specs' URLs) is
 * in it.
 */
import { ConfigError, loadConfig } from '../../../src/config/configuration';

export function expectRefused(env: Record<string, string>, problem: string): void {
  expect(() => loadConfig(env)).toThrow(new ConfigError(`Invalid configuration: ${problem}.`));
  try {
    loadConfig(env);
  } catch (error) {
    expect((error as Error).message).not.toContain('secret');
    expect((error as Error).message).not.toContain('\n');
  }
}
