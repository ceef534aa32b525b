/**
 * Which scopes a request needs (CONTRACT §14), from its method and path alone: a write of a
 * collection needs `records:write` or `<collection>:write`; with reads required, a read needs
 * `records:read` or `<collection>:read`, or a write scope of the same reach. The scope names come
 * from each collection's declared plural name (`marbles:write`, `phone_numbers:read`). Every
 * requirement is built once, at start; a request only finds its own.
 */

/** The part of a collection's declaration the rules read. */
export interface ProtectedCollection {
  /** `/api/demo/marbles`: the collection and everything under it. */
  path: string;
  /** `marbles`: the scope names' prefix. */
  plural: string;
}

/** The scopes that grant everything of one kind, on every collection. */
export const ALL_READ = 'records:read';
export const ALL_WRITE = 'records:write';

/**
 * The scope of the webhook subscriptions (`/api/webhooks`), reads included: they hold the
 * secrets the deliveries are signed with, and say where the whole feed goes.
 */
export const WEBHOOKS_ADMIN = 'webhooks:admin';
const WEBHOOKS = /^\/api\/webhooks(?:$|[/.])/;
const OPERATIONS = /^\/api\/operations(?:$|\/$|\.\w+$)/;

export type Action = 'read' | 'write' | 'admin';

/** What one request needs: any one of `scopes`. */
export interface Requirement {
  action: Action;
  /** The collection's plural name; undefined for a path of no collection. */
  collection?: string;
  /** Any one of them grants the request; the narrowest first. */
  scopes: readonly string[];
  /**
   * The scopes are checked by the route itself, once it has read its body (atomic operations:
   * the write scope of each collection the body names); the middleware only requires a token.
   */
  deferred?: boolean;
  /** The message of a 401 and of a 403, written once. */
  unauthenticated: string;
  forbidden: string;
}

/**
 * Paths whose reads stay open whatever the configuration: the front door, health, the
 * documents, the pages' assets. A write is a write anywhere: it needs a write scope.
 */
const OPEN = /^\/(?:$|api\/?$|health(?:\/|$)|api\/openapi\.json$|api\/docs(?:\/|$)|assets\/)/;

/** Methods that read (their body is never read); OPTIONS is also the CORS preflight. */
export function isWrite(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}

export class AccessRules {
  private readonly collections: { prefix: string; read: Requirement; write: Requirement }[];
  private readonly otherRead: Requirement;
  private readonly otherWrite: Requirement;
  private readonly byPlural: Map<string, Requirement>;
  /** `POST /api/operations`: a token, then the write scope of every collection it names. */
  private readonly operations: Requirement;
  private readonly webhooks: Requirement = {
    action: 'admin',
    scopes: [WEBHOOKS_ADMIN],
    unauthenticated:
      'Webhook subscriptions need a valid bearer token (Authorization: Bearer <token>).',
    forbidden: `This token does not allow managing webhooks: it needs the scope ${WEBHOOKS_ADMIN}.`,
  };

  constructor(
    collections: readonly ProtectedCollection[],
    /** `AUTH_READS=required`. */
    readonly readsRequired: boolean,
  ) {
    this.collections = collections
      .map((c) => ({
        prefix: c.path.replace(/\/+$/, ''),
        read: requirement('read', c.plural),
        write: requirement('write', c.plural),
      }))
      // The longest path first, should one collection's path begin another's.
      .sort((a, b) => b.prefix.length - a.prefix.length);
    this.otherRead = requirement('read');
    this.otherWrite = requirement('write');
    this.byPlural = new Map(collections.map((c) => [c.plural, requirement('write', c.plural)]));
    this.operations = { ...this.otherWrite, deferred: true };
  }

  /** What a write of the collection `plural` needs (atomic operations check each they name). */
  writeRequirementOf(plural: string): Requirement {
    return this.byPlural.get(plural) ?? this.otherWrite;
  }

  /**
   * What a request needs, or undefined when it is open. `path` is without the query (and the
   * format suffix); an unknown path needs what any path does, so nothing is open by mistake.
   */
  requirementOf(method: string, path: string): Requirement | undefined {
    if (method === 'OPTIONS') return undefined;
    if (WEBHOOKS.test(path)) return this.webhooks;
    const write = isWrite(method);
    if (method === 'POST' && OPERATIONS.test(path)) return this.operations;
    if (!write && (!this.readsRequired || OPEN.test(path))) return undefined;
    for (const c of this.collections) {
      if (
        path.startsWith(c.prefix) &&
        (path.length === c.prefix.length || path[c.prefix.length] === '/')
      ) {
        return write ? c.write : c.read;
      }
    }
    return write ? this.otherWrite : this.otherRead;
  }

  /** The requirement of an operation of the OpenAPI document (`{id}` templates are paths too). */
  documentRequirement(method: string, path: string): Requirement | undefined {
    return this.requirementOf(method.toUpperCase(), path);
  }
}

function requirement(action: Action, collection?: string): Requirement {
  const all = action === 'write' ? ALL_WRITE : ALL_READ;
  const scopes =
    action === 'write'
      ? collection
        ? [`${collection}:write`, ALL_WRITE]
        : [ALL_WRITE]
      : collection
        ? [`${collection}:read`, ALL_READ, `${collection}:write`, ALL_WRITE]
        : [ALL_READ, ALL_WRITE];
  const what = action === 'write' ? 'Writes' : 'Reads';
  const of = collection ? ` of ${collection}` : '';
  return {
    action,
    collection,
    scopes,
    unauthenticated: `${what} need a valid bearer token (Authorization: Bearer <token>).`,
    forbidden:
      `This token does not allow ${action === 'write' ? 'writing' : 'reading'}${of || ' here'}: ` +
      `it needs the scope ${scopes[0]}` +
      (scopes[0] === all ? '.' : ` or ${all}.`),
  };
}

/** Whether `granted` holds one of the scopes of `requirement`. */
export function grants(granted: ReadonlySet<string>, requirement: Requirement): boolean {
  for (const scope of requirement.scopes) if (granted.has(scope)) return true;
  return false;
}
