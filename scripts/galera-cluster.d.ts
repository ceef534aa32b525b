/** Types of galera-cluster.js (a CommonJS script, also run from the command line). */
export interface GaleraNode {
  readonly index: number;
  readonly name: string;
  readonly port: number;
  /** host:port of its SQL port. */
  readonly address: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  url(user?: string, password?: string): string;
  start(options?: { bootstrap?: boolean; timeoutMs?: number }): Promise<void>;
  waitSynced(timeoutMs?: number): Promise<void>;
  state(): Promise<{ local: string | undefined; cluster: string | undefined; size: number }>;
  /** A connection of its own as root, through the node's socket (the caller ends it). */
  connect(): Promise<import('mysql2/promise').Connection>;
  query<T = Record<string, unknown>>(sql: string, parameters?: unknown[]): Promise<T[]>;
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
  kill(): Promise<void>;
  log(): string;
}

export interface GaleraCluster {
  readonly root: string;
  readonly nodes: GaleraNode[];
  readonly database: string;
  /** Every node, in order, in one DATABASE_URL. */
  url(user?: string, password?: string): string;
  node(index: number): GaleraNode;
  kill(index: number): Promise<void>;
  restart(index: number, timeoutMs?: number): Promise<void>;
  freeze(index: number): void;
  thaw(index: number): void;
  waitSynced(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export function startCluster(
  root: string,
  options?: {
    basePort?: number;
    database?: string;
    size?: number;
    rootOverTcp?: boolean;
    /** More mariadbd options of every node, `name=value` without the leading dashes. */
    serverOptions?: string[];
    /** More Galera options of every node (`evs.suspect_timeout=PT5S`), after EVICTION's. */
    providerOptions?: string[];
  },
): Promise<GaleraCluster>;
/** What this machine lacks to run a cluster, by name (empty: nothing). */
export function missing(): string[];
export const USER: string;
export const PASSWORD: string;
/** How soon a silent node is evicted: each node's wsrep_provider_options (as docker/galera.cnf). */
export const EVICTION: readonly string[];
