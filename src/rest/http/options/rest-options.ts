import { DatabaseOptions } from '../../db/typeorm-database';

/**
 * The options of `RestModule.forRoot`, injectable under REST_OPTIONS: the database's (time limit
 * of reads, read replicas) and the safe writes'.
 */
export interface RestOptions extends DatabaseOptions {
  /** How long the response of a request with an Idempotency-Key is kept, in milliseconds. */
  idempotencyTtlMs: number;
  /** Single-record writes without If-Match are refused with 428. */
  requireIfMatch: boolean;
  /** A list's unknown query parameter, operator or ordering field is a 400; else it is ignored. Default false. */
  strictQuery?: boolean;
}

export const REST_OPTIONS = Symbol('REST_OPTIONS');
