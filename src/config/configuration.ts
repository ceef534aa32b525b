/**
 * The service's configuration, read from the environment once at start and validated: a bad
 * value stops the service with one line naming the variable.
 */

export type DatabaseConfig =
  | { type: 'sqlite'; path: string }
  | { type: 'mysql'; url: string; database: string };

export interface AppConfig {
  port: number;
  database: DatabaseConfig;
  /** Load demo data into an empty database at start. */
  demoData: boolean;
}

export const DEFAULT_DATABASE_URL = 'sqlite:data/records.sqlite';

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const problems: string[] = [];
  const port = parsePort(env.PORT ?? '3000');
  if (port === undefined) problems.push(`PORT must be a port number (1-65535), got "${env.PORT}"`);
  const database = parseDatabaseUrl(env.DATABASE_URL || DEFAULT_DATABASE_URL);
  if (typeof database === 'string') problems.push(`DATABASE_URL ${database}`);
  const demoData = parseFlag(env.DEMO_DATA ?? 'true');
  if (demoData === undefined) problems.push(`DEMO_DATA must be true or false, got "${env.DEMO_DATA}"`);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}.`);
  return { port: port!, database: database as DatabaseConfig, demoData: demoData! };
}

function parsePort(raw: string): number | undefined {
  if (!/^\d{1,5}$/.test(raw)) return undefined;
  const port = Number(raw);
  return port >= 1 && port <= 65535 ? port : undefined;
}

function parseFlag(raw: string): boolean | undefined {
  if (/^(true|1|yes|on)$/i.test(raw)) return true;
  if (/^(false|0|no|off)$/i.test(raw)) return false;
  return undefined;
}

/** The database a URL names, or a sentence saying what is wrong with it. */
export function parseDatabaseUrl(raw: string): DatabaseConfig | string {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    return path ? { type: 'sqlite', path } : 'must name a file: sqlite:path/to/file.sqlite';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `must be sqlite:<file> or mysql://user:password@host:3306/database, got "${redact(raw)}"`;
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    return `has unsupported scheme "${url.protocol}" (use sqlite: or mysql:)`;
  }
  const database = decodeURIComponent(url.pathname.slice(1));
  if (!database || database.includes('/')) {
    return 'must name a database: mysql://user:password@host:3306/database';
  }
  if (!url.hostname) return 'must name a host: mysql://user:password@host:3306/database';
  return { type: 'mysql', url: raw, database };
}

function redact(raw: string): string {
  return raw.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
