/**
 * The read statements the app runs for one request, and those alone. A spy on the database's
 * `query` keeps a statement only when it runs for that request (its `X-Request-Id`, kept at hand
 * here around the server's handling of each request: the app itself keeps a request at hand for
 * writes only), never the app's background work running meanwhile: the feed's sequencer poll, a
 * stream's reader, a purge.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Response } from 'supertest';
import { SqlDatabase } from '../../sources';
import { TestApp } from './harness';

/** The `X-Request-Id` of the request the current call runs for. */
const requestIds = new AsyncLocalStorage<string | undefined>();

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Runs the server's request handling within `requestIds`; returns what puts it back. */
function tagRequests(server: Server): () => void {
  const listeners = server.listeners('request') as Listener[];
  server.removeAllListeners('request');
  for (const listener of listeners) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const id = req.headers['x-request-id'];
      requestIds.run(typeof id === 'string' ? id : undefined, () => listener(req, res));
    });
  }
  return () => {
    server.removeAllListeners('request');
    for (const listener of listeners) server.on('request', listener);
  };
}

export interface Statement {
  sql: string;
  parameters?: unknown[];
}

/** `GET path` (answered 200), and the read statements it ran, in order. */
export async function readsOf(
  t: TestApp,
  path: string,
): Promise<{ res: Response; statements: Statement[] }> {
  const db = t.app.get(SqlDatabase);
  const id = `statements-${randomUUID()}`;
  const statements: Statement[] = [];
  const query = db.query.bind(db);
  const untag = tagRequests(t.app.getHttpServer() as Server);
  const spy = jest.spyOn(db, 'query').mockImplementation((sql, parameters) => {
    if (requestIds.getStore() === id) statements.push({ sql, parameters });
    return query(sql, parameters);
  });
  try {
    const res = await t.http().get(path).set('X-Request-Id', id).expect(200);
    return { res, statements };
  } finally {
    spy.mockRestore();
    untag();
  }
}
