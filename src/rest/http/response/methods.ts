import type { Request } from 'express';

export type Router = { stack: RouteLayer[] };

export interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
  match(path: string): boolean;
}

/** Every method the service serves somewhere, in the order `Allow` lists them. */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Reads: their body is never read, and they need no write token. */
export function isRead(method: string): boolean {
  return READS.has(method);
}

/**
 * The methods the application serves on the request's path, from Express's own route table, so
 * a 405's `Allow` header cannot disagree with the routes.
 */
export function allowedMethods(req: Request): string[] {
  const stack = (req.app as unknown as { router: Router }).router.stack;
  // Wildcard routes are middleware bound to every path (request-scoped logging), not endpoints.
  const routes = stack.filter(
    (layer) => layer.route && !layer.route.path.includes('*') && layer.match(req.path),
  );
  // A path a route names word for word (`/api/demo/marbles/events`) is that route's alone, not
  // also a record's (`/api/demo/marbles/:id` matches it too): its methods are the literal ones.
  const literal = routes.filter((layer) => !layer.route!.path.includes(':'));
  const methods = new Set<string>();
  for (const layer of literal.length > 0 ? literal : routes) {
    for (const [method, on] of Object.entries(layer.route!.methods)) {
      if (on && method !== '_all') methods.add(method.toUpperCase());
    }
  }
  if (methods.size === 0) return [];
  if (methods.has('GET')) methods.add('HEAD');
  // Every known path answers OPTIONS: with its OpenAPI document or, elsewhere, 204 and Allow.
  methods.add('OPTIONS');
  return METHODS.filter((m) => methods.has(m));
}

/** The 405 of a method a path does not serve: its message and the path's `Allow`. */
export function methodNotAllowed(
  method: string,
  allowed: string[],
): { status: 405; body: { message: string }; headers: { Allow: string } } {
  const list = allowed.join(', ');
  return {
    status: 405,
    body: { message: `Method ${method} is not allowed here; allowed: ${list}.` },
    headers: { Allow: list },
  };
}
