/**
 * Who is making a request, once access control has looked at its credentials: the one place the
 * rest of the service reads it. `actorOf(req)` is the writer recorded in a write's log line, its
 * span and its change events: the token's `sub`, `api-token` for the static API_TOKEN, or null
 * for a request without credentials (on a service whose writes are open).
 */
import type { Request } from 'express';

export interface Principal {
  /** The token's `sub`, or API_TOKEN_ACTOR. */
  actor: string;
  /** What vouched for it: the static API_TOKEN or a verified token (whose `sub` may be anything). */
  by: 'api-token' | 'token';
  scopes: ReadonlySet<string>;
}

/** The actor of a request made with the static API_TOKEN. */
export const API_TOKEN_ACTOR = 'api-token';

const PRINCIPAL = Symbol('principal');
type WithPrincipal = Request & { [PRINCIPAL]?: Principal };

export function setPrincipal(req: Request, principal: Principal): void {
  (req as WithPrincipal)[PRINCIPAL] = principal;
}

export function principalOf(req: Request): Principal | undefined {
  return (req as WithPrincipal)[PRINCIPAL];
}

/** The writer of a request: `sub`, `api-token`, or null without credentials. */
export function actorOf(req: Request): string | null {
  return (req as WithPrincipal)[PRINCIPAL]?.actor ?? null;
}
