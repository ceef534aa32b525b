import { Logger } from '@nestjs/common';
import { DataSource, DataSourceOptions } from 'typeorm';
import { errorCode } from '../rest/db/database-errors';
import { openDatabase, SCHEMA_LOCK_NO_MAJORITY } from './migrate';

/** mysql2's name for 1047, "WSREP has not yet prepared node for application use". */
const NOT_PRIMARY = 'ER_UNKNOWN_COM_ERROR';

/**
 * Problems that may go away by themselves (the server starting, a network blip): retried.
 * Anything else (unknown database, access denied, unknown host, a failed migration) cannot fix
 * itself, and stops the start at once.
 */
const TRANSIENT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'SQLITE_BUSY',
  // A Galera node not yet in the primary component (1047: starting, joining, or cut off from
  // the quorum) answers every statement so until it is: waited for, with one log line.
  NOT_PRIMARY,
  // Fewer than a majority of a cluster's nodes could take the schema lock (migrate.ts).
  SCHEMA_LOCK_NO_MAJORITY,
]);

/** What a Galera cluster without quorum (or not yet formed) answers at start. */
const NO_QUORUM = new Set([NOT_PRIMARY, SCHEMA_LOCK_NO_MAJORITY]);

/** Pauses between attempts: 1, 2, 4, 8, then 10 s; the start fails after about a minute. */
const FIRST_PAUSE_MS = 1000;
const LONGEST_PAUSE_MS = 10_000;
const GIVE_UP_AFTER_MS = 60_000;

/** The start cannot go on: `message` is the one line that says why. */
export class DatabaseStartError extends Error {}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `openDatabase` through the first node that answers and is in the primary component; a node's
 * transient failure is logged (through `warn`, which says a node's 1047 once).
 */
async function firstNode(
  options: DataSourceOptions,
  nodes: number,
  warn: (message: string, error: unknown) => void,
): Promise<DataSource> {
  for (let index = 0; ; index++) {
    try {
      return await openDatabase(withMasterAt(options, index));
    } catch (error) {
      if (index + 1 >= nodes || !TRANSIENT.has(errorCode(error))) throw error;
      warn(
        `node ${index + 1} of DATABASE_URL unreachable (${reasonOf(error)}); trying the next`,
        error,
      );
    }
  }
}

/** What to do about a permanent failure, where the driver's words do not say it. */
const HINTS: Record<string, string> = {
  ER_BAD_DB_ERROR:
    '; create it first (CREATE DATABASE): the service creates nothing outside its database',
};

function reasonOf(error: unknown): string {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (!message) return code || 'unknown error';
  return !code || message.includes(code) ? message : `${code}: ${message}`;
}

/** TypeORM's `replication` option, as data-source-options.ts writes it. */
interface Replication {
  master: { url: string };
  slaves: { url: string }[];
}

/**
 * The options with the `index`-th node of a cluster as TypeORM's MASTER (the one it migrates
 * on), the others as its SLAVEs, each URL kept (rest/db/galera.ts finds the nodes by URL).
 */
export function withMasterAt(options: DataSourceOptions, index: number): DataSourceOptions {
  const { replication } = options as { replication?: Replication };
  if (!replication || index === 0) return options;
  const urls = [replication.master.url, ...replication.slaves.map((s) => s.url)];
  return {
    ...options,
    replication: {
      ...replication,
      master: { url: urls[index] },
      slaves: urls.filter((_, i) => i !== index).map((url) => ({ url })),
    },
  } as DataSourceOptions;
}

/**
 * `openDatabase` (connect, migrate) for the service's start: a transient failure is retried with
 * growing pauses, one warning line per attempt; a permanent one, or a transient one that lasts a
 * minute, is a DatabaseStartError naming DATABASE_URL (shown as `shown`, without its password).
 * `nodes`: the nodes of a cluster, tried in the order of the list within each attempt, so the
 * service starts while the first is down (it connects and migrates through the first that
 * answers).
 */
export async function connectDatabase(
  options: DataSourceOptions,
  shown: string,
  logger = new Logger('Database'),
  nodes = 1,
): Promise<DataSource> {
  const started = Date.now();
  // A cluster without quorum, or still forming, answers 1047 (or grants the schema lock on fewer
  // than a majority of its nodes) for seconds, on every attempt: said once.
  let toldNoQuorum = false;
  const warn = (message: string, error: unknown) => {
    if (!NO_QUORUM.has(errorCode(error))) return logger.warn(message);
    if (toldNoQuorum) return;
    toldNoQuorum = true;
    logger.warn(
      `DATABASE_URL ${shown}: no primary component of the cluster within reach yet ` +
        `(${reasonOf(error)}); waiting for one, up to ${GIVE_UP_AFTER_MS / 1000} s`,
    );
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return await firstNode(options, nodes, warn);
    } catch (error) {
      const reason = reasonOf(error);
      const wait = Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), LONGEST_PAUSE_MS);
      if (!TRANSIENT.has(errorCode(error))) {
        throw new DatabaseStartError(
          `DATABASE_URL ${shown} cannot be used: ${reason}${HINTS[errorCode(error)] ?? ''}`,
        );
      }
      if (Date.now() + wait - started > GIVE_UP_AFTER_MS) {
        throw new DatabaseStartError(
          `DATABASE_URL ${shown} still unreachable after ${attempt} attempts: ${reason}`,
        );
      }
      warn(
        `DATABASE_URL ${shown} unreachable (${reason}); attempt ${attempt}, next in ${wait / 1000} s`,
        error,
      );
      await pause(wait);
    }
  }
}
