/**
 * The access log line of one request, as the ops suites look it up: by the X-Request-Id the test
 * sent, and what the line says of a marble created by a given writer.
 */
import type { LogEntry, ServerProcess } from '../support/process';

/** The access line of the request sent with X-Request-Id `id`, once the server has written it. */
export const accessLine = (server: ServerProcess, id: string): Promise<LogEntry> =>
  server.waitForLog((e) => e.req?.id === id);

/** The `req` of the access line of a marble created by `actor` under X-Request-Id `id`. */
export const marbleCreatedBy = (id: string, actor: string) => ({
  id,
  method: 'POST',
  path: '/api/demo/marbles',
  actor,
});
