import pino, { Logger } from 'pino';
import { AppConfig } from '../config/configuration';

const loggers = new WeakMap<AppConfig, Logger>();

/**
 * `res.locals` key: the service closed this event stream because its consumer did not read
 * (events/event-hub.ts); the access line (logging.ts) says so, at warn.
 */
export const SLOW_CONSUMER = 'slowConsumer';

/** The log is written when this much is buffered, */
const LOG_BATCH_BYTES = 4096;
/** and whatever is buffered this often. */
const LOG_FLUSH_MS = 100;

/**
 * The process's pino logger: JSON lines on stdout, written asynchronously, or pretty lines
 * (`prettyLogs`: LOG_FORMAT=pretty, or unset in a terminal).
 */
export function rootLogger(config: AppConfig): Logger {
  let logger = loggers.get(config);
  if (!logger) {
    logger = config.prettyLogs
      ? // pino-pretty in this thread, written synchronously: a development tool, so nothing is
        // lost when the process stops at once (a database that cannot be used).
        pino(
          { level: config.logLevel },
          (require('pino-pretty') as typeof import('pino-pretty')).PinoPretty({
            singleLine: true,
            sync: true,
            // The start line says its url, docs and database in words already.
            ignore: 'pid,hostname,url,docs,database',
          }),
        )
      : // Written asynchronously, off the request's path, in batches: a write when 4 KiB are
        // buffered, and whatever is buffered every 100 ms (one write per line would cost a
        // system call per request). pino writes what is left on exit.
        pino(
          { level: config.logLevel },
          pino.destination({
            dest: 1,
            sync: false,
            minLength: LOG_BATCH_BYTES,
            periodicFlush: LOG_FLUSH_MS,
          }),
        );
    loggers.set(config, logger);
  }
  return logger;
}
