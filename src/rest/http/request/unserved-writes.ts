import type { NextFunction, Request, Response } from 'express';
import { allowedMethods, methodNotAllowed, RouteLayer, Router } from '../response/methods';
import { sendError } from '../response/respond';

/** A record's id as a path writes it: the last segment of the paths `/:id` serves. */
const RECORD_ID = /\/[1-9]\d*\/?$/;
const RECORD_WRITES = new Set(['PUT', 'PATCH', 'DELETE']);

/** Each app's routes that name their path word for word (no parameter, no wildcard), found once. */
const literalRoutes = new WeakMap<Router, RouteLayer[]>();

function literalRoutesOf(router: Router): RouteLayer[] {
  let found = literalRoutes.get(router);
  if (!found) {
    found = router.stack.filter(
      (layer) => layer.route && !layer.route.path.includes(':') && !layer.route.path.includes('*'),
    );
    literalRoutes.set(router, found);
  }
  return found;
}

/**
 * Express middleware, before a body is read: a PUT, PATCH or DELETE on a path a route names word
 * for word (`/api/demo/marbles/events`, `/api/demo/emails/ping`) that does not serve it is a 405
 * with that route's `Allow`, as a POST there is. Without it the record route `/:id`, which matches
 * those paths too, took them and answered "Marble events not found.". A path ending in an id, the
 * usual write, is passed on without a look at the routes.
 */
export function refuseUnservedWrites(req: Request, res: Response, next: NextFunction): void {
  if (!RECORD_WRITES.has(req.method) || RECORD_ID.test(req.path)) return next();
  const router = (req.app as unknown as { router: Router }).router;
  if (!literalRoutesOf(router).some((layer) => layer.match(req.path))) return next();
  const allowed = allowedMethods(req);
  if (allowed.includes(req.method)) return next();
  const refusal = methodNotAllowed(req.method, allowed);
  sendError(res, refusal.status, refusal.body, refusal.headers);
}
