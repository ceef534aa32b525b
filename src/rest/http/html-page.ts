import type { Request, Response } from 'express';
import { ScalarType } from '../core/fields';
import { HtmlRequest, PageRequest, RecordAction } from '../core/html-pages';
import { ResourceDefinition, perResource } from '../core/resource';
import { ASSET_URLS } from './html-assets';

interface Operation {
  summary?: string;
  description?: string;
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}
type Paths = Record<string, Record<string, Operation>>;

interface Setup {
  paths: Paths;
  token: boolean;
  resources: readonly ResourceDefinition[];
}

let setup: Setup = { paths: {}, token: false, resources: [] };

/**
 * Once at start: the OpenAPI document (route titles, descriptions and record actions), whether
 * writes need the token, and the collections (for the error pages of their paths).
 */
export function configureBrowsable(options: {
  document: { paths: object };
  token: boolean;
  resources: readonly ResourceDefinition[];
}): void {
  setup = {
    paths: options.document.paths as Paths,
    token: options.token,
    resources: options.resources,
  };
  titles.clear();
}

/** Title and description of a route, from its OpenAPI operation, looked up once per route. */
const titles = new Map<string, { title: string; description?: string }>();

function describe(req: Request): { title: string; description?: string } {
  const route = (req.route as { path?: string } | undefined)?.path;
  if (route === undefined) return { title: req.path };
  const key = `${req.method} ${route}`;
  let found = titles.get(key);
  if (!found) {
    const path = route.replace(/:(\w+)/g, '{$1}').replace(/\/$/, '');
    const op = setup.paths[path]?.[req.method === 'HEAD' ? 'get' : req.method.toLowerCase()];
    found = { title: op?.summary ?? path, description: op?.description };
    titles.set(key, found);
  }
  return found;
}

/** The `PATCH /{id}/<action>` routes of a collection, with their body fields. */
const actionsOf = perResource((resource): RecordAction[] => {
  const prefix = `${resource.path}/{id}/`;
  const types = new Map<string, ScalarType>();
  for (const f of resource.fields) if (f.kind === 'scalar') types.set(f.name, f.type);
  return Object.entries(setup.paths)
    .filter(([path, ops]) => path.startsWith(prefix) && ops.patch)
    .map(([path, ops]) => {
      const properties =
        ops.patch.requestBody?.content?.['application/json']?.schema?.properties ?? {};
      return {
        name: path.slice(prefix.length),
        title: ops.patch.summary ?? path.slice(prefix.length),
        fields: Object.keys(properties).map((name) => ({
          name,
          type: types.get(name) ?? 'string',
        })),
      };
    });
});

/** What the HTML page needs of an Express request, beyond what every renderer gets. */
export function pageRequest(req: Request): PageRequest {
  const res = req.res as Response;
  const queryAt = req.originalUrl.indexOf('?');
  const resource = setup.resources.find(
    (r) => req.path === r.path || req.path.startsWith(`${r.path}/`),
  );
  const { title, description } = describe(req);
  return {
    path: req.path,
    query: queryAt === -1 ? '' : req.originalUrl.slice(queryAt + 1),
    asked: (res.locals.htmlAsked as HtmlRequest | undefined) ?? 'accept',
    title,
    description,
    token: setup.token,
    assets: ASSET_URLS,
    resource,
    actions: resource ? actionsOf(resource) : undefined,
  };
}
