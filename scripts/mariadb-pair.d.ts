/** Types of mariadb-pair.js (a CommonJS script, also run from the command line). */
export interface MariaDbServer {
  readonly name: string;
  readonly port: number;
  readonly pid: number | undefined;
  url(user?: string, password?: string): string;
  start(timeoutMs?: number): Promise<void>;
  /** A connection as root through the socket (mysql2/promise). */
  connect(): Promise<import('mysql2/promise').Connection>;
  query<T = Record<string, unknown>>(sql: string, parameters?: unknown[]): Promise<T[]>;
  status(name: string): Promise<number>;
  stop(): Promise<void>;
  kill(): Promise<void>;
  log(): string;
}

export function startPair(
  root: string,
): Promise<{ primary: MariaDbServer; replica: MariaDbServer }>;
/**
 * One server of its own, neither primary nor replica, answering as root through its socket;
 * `args`: more server options, also on a restart.
 */
export function startServer(root: string, name?: string, args?: string[]): Promise<MariaDbServer>;
export function caughtUp(
  primary: MariaDbServer,
  replica: MariaDbServer,
  timeoutMs?: number,
): Promise<void>;
export function findBinary(name: string): string | undefined;
export function missingBinaries(): string[];
export function freePort(): Promise<number>;
export const USER: string;
export const PASSWORD: string;
