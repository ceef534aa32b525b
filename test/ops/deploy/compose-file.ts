/**
 * docker-compose.yml as the compose specs read it: parsed with `yaml`, its `${VAR:-default}` and
 * `${VAR:?message}` references filled in as compose fills them from the environment and `.env`,
 * and the pieces of a service they compare (its environment, its mounts, the variables the service
 * reads).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { COLLECTION_NAMES, ENVIRONMENT_VARIABLES } from '../../sources';
import { ROOT } from '../support/process';

export interface Service {
  image?: string;
  build?: string | { context: string; dockerfile?: string };
  environment?: Record<string, string | number | boolean | null> | string[];
  volumes?: (string | { source: string; target: string })[];
  healthcheck?: { test: string | string[]; disable?: boolean; retries?: number; interval?: string };
  depends_on?: unknown;
  ports?: (string | number)[];
  profiles?: string[];
  entrypoint?: string | string[];
  command?: string | string[];
  deploy?: { replicas?: number };
  restart?: string;
  stop_grace_period?: string;
}

export interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

/**
 * Compose's interpolation of one value: `${NAME:-default}` (default when unset or empty),
 * `${NAME-default}` (when unset), `${NAME:?message}` (an error saying `message` when unset or
 * empty), `${NAME?message}` (when unset), `${NAME}`, and `$$` for a literal `$`. A bare `$NAME` is
 * refused, to keep the file to the explicit forms.
 */
export function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(
    /\$\$|\$\{(\w+)(?:(:?[-?])([^}]*))?\}|\$(\w+)/g,
    (whole, name?: string, op?: string, operand?: string, bare?: string) => {
      if (whole === '$$') return '$';
      if (bare) throw new Error(`bare $${bare} in a compose file: write \${${bare}}`);
      const value = env[name!];
      if (op === ':-') return value ? value : operand!;
      if (op === '-') return value !== undefined ? value : operand!;
      if ((op === ':?' && !value) || (op === '?' && value === undefined)) {
        throw new Error(`required variable ${name} is missing a value: ${operand}`);
      }
      if (op) return value!;
      if (value === undefined) throw new Error(`\${${name}} has no default`);
      return value;
    },
  );
}

/** Every string of `value` (a parsed YAML document) interpolated, as compose does: not comments. */
function interpolated(value: unknown, env: Record<string, string>): unknown {
  if (typeof value === 'string') return interpolate(value, env);
  if (Array.isArray(value)) return value.map((v) => interpolated(v, env));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, interpolated(v, env)]));
  }
  return value;
}

export function loadCompose(file: string, env: Record<string, string> = {}): Compose {
  // Merge keys (`<<: *anchor`), as compose reads them.
  const parsed: unknown = parse(readFileSync(join(ROOT, file), 'utf8'), { merge: true });
  return interpolated(parsed, env) as Compose;
}

/**
 * The two passwords compose requires (no default: `${VAR:?…}`), as a user sets them in `.env`;
 * values the specs look for, and never find, on a command line.
 */
export const PASSWORDS = {
  MYSQL_PASSWORD: 'app-password-in-dot-env',
  MYSQL_ROOT_PASSWORD: 'root-password-in-dot-env',
};

/** docker-compose.yml, read with the passwords set, and its two services outside profiles. */
export const compose = loadCompose('docker-compose.yml', PASSWORDS);
export const db = compose.services?.db ?? {};
export const api = compose.services?.api ?? {};

/** `environment` as a map, whether written as a map or as a list of NAME=value. */
export function envOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => {
        const at = entry.indexOf('=');
        return at === -1 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** Volume mounts as {source, target}, short or long syntax. */
export function mounts(service: Service): { source: string; target: string }[] {
  return (service.volumes ?? []).map((v) => {
    if (typeof v !== 'string') return { source: v.source, target: v.target };
    const [source, target] = v.split(':');
    return { source, target };
  });
}

/**
 * Every variable the service reads that compose passes through: ENVIRONMENT_VARIABLES and one
 * PAGE_TOTAL_COUNT_<COLLECTION> per collection, but PORT and DATABASE_URL, which the compose
 * services set to the container's own.
 */
export function serviceVariables(): string[] {
  return [
    ...ENVIRONMENT_VARIABLES.filter((name) => name !== 'PORT' && name !== 'DATABASE_URL'),
    ...COLLECTION_NAMES.map((name) => `PAGE_TOTAL_COUNT_${name.toUpperCase()}`),
  ];
}
