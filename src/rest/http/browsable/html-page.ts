import type { Request, Response } from 'express';
import { ScalarType } from '../../core/fields';
import { HtmlRequest, PageRequest, RecordAction } from './html-context';
import { ResourceDefinition, perResource } from '../../core/resource';
import { ASSET_URLS } from './html-assets';
import { LIVE_FEED, LiveFeed } from './html-live';
import { titledLinks } from './html-links';
import { FEED_HEARTBEAT } from './html-feed';

interface Operation {
  summary?: string;
  description?: string;
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}
type Paths = Record<string, Record<string, Operation>>;

/** Where an application keeps its BrowsablePages (Express `app.locals`). */
const PAGES = 'browsablePages';

/**
 * What the pages of one application know beyond the request, from start: the OpenAPI document
 * (route titles, descriptions and record actions), whether writes need the token, and the
 * collections (for the error pages of their paths). Titles and actions are looked up once each.
 */
export class BrowsablePages {
  private readonly paths: Paths;
  private readonly titles = new Map<string, { title: string; description?: string }>();
  readonly actionsOf: (resource: ResourceDefinition) => RecordAction[];
  /** Each collection's path by its plural name. */
  readonly collectionPaths: Record<string, string>;

  constructor(
    document: { paths: object },
    readonly token: boolean,
    readonly resources: readonly ResourceDefinition[],
  ) {
    this.paths = document.paths as Paths;
    this.actionsOf = perResource((resource) => this.actionsFrom(resource));
    this.collectionPaths = Object.fromEntries(resources.map((r) => [r.plural, r.path]));
  }

  /** Installs these pages as the application's (once, at start). */
  installOn(app: { locals: Record<string, unknown> }): void {
    app.locals[PAGES] = this;
  }

  /** Title and description of a route, from its OpenAPI operation. */
  describe(req: Request): { title: string; description?: string } {
    const route = (req.route as { path?: string } | undefined)?.path;
    if (route === undefined) return { title: req.path };
    const key = `${req.method} ${route}`;
    let found = this.titles.get(key);
    if (!found) {
      const path = route.replace(/:(\w+)/g, '{$1}').replace(/\/$/, '') || '/';
      const op = this.paths[path]?.[req.method === 'HEAD' ? 'get' : req.method.toLowerCase()];
      found = { title: op?.summary ?? path, description: op?.description };
      this.titles.set(key, found);
    }
    return found;
  }

  /** The `PATCH /{id}/<action>` routes of a collection, with their body fields. */
  private actionsFrom(resource: ResourceDefinition): RecordAction[] {
    const prefix = `${resource.path}/{id}/`;
    const types = new Map<string, ScalarType>();
    for (const f of resource.fields) if (f.kind === 'scalar') types.set(f.name, f.type);
    return Object.entries(this.paths)
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
  }
}

/** An application without pages installed (none yet at start): titles from the path alone. */
const NO_PAGES = new BrowsablePages({ paths: {} }, false, []);

/** What the HTML page needs of an Express request, beyond what every renderer gets. */
export function pageRequest(req: Request): PageRequest {
  const res = req.res as Response;
  const queryAt = req.originalUrl.indexOf('?');
  const pages = (req.app.locals[PAGES] as BrowsablePages | undefined) ?? NO_PAGES;
  const resource = pages.resources.find(
    (r) => req.path === r.path || req.path.startsWith(`${r.path}/`),
  );
  const { title, description } = pages.describe(req);
  return {
    path: req.path,
    query: queryAt === -1 ? '' : req.originalUrl.slice(queryAt + 1),
    asked: (res.locals.htmlAsked as HtmlRequest | undefined) ?? 'accept',
    title,
    description,
    token: pages.token,
    assets: ASSET_URLS,
    resource,
    actions: resource ? pages.actionsOf(resource) : undefined,
    live: res.locals[LIVE_FEED] as LiveFeed | undefined,
    links: titledLinks(res.getHeader('Link') as string | undefined),
    collectionPaths: pages.collectionPaths,
    heartbeatMs: res.locals[FEED_HEARTBEAT] as number | undefined,
  };
}
