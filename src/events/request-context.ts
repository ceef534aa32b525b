import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import { actorOf } from '../rest/http/auth/principal';

/** The request a write runs for, as its events name it. */
export interface WriteContext {
  requestId: string | null;
  actor: string | null;
}

const current = new AsyncLocalStorage<{ req: Request; res: Response }>();

/**
 * Express middleware (after the body parsers, like every context of the request's own): the
 * request is at hand for the change recorder deep in the write path, which knows no request.
 */
export function rememberRequest(req: Request, res: Response, next: NextFunction): void {
  current.run({ req, res }, next);
}

/** The `X-Request-Id` and the actor of the request this call runs for (nulls outside one). */
export function writeContext(): WriteContext {
  const store = current.getStore();
  if (!store) return { requestId: null, actor: null };
  const id = store.res.getHeader('X-Request-Id');
  return { requestId: typeof id === 'string' ? id : null, actor: actorOf(store.req) };
}
