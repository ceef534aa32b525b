import type { Request, Response } from 'express';
import { ScalarType } from '../core/fields';
import {
  HtmlRequest,
  PageContext,
  RecordAction,
  errorPage,
  resultPage,
  statusLine,
} from '../core/html/pages';
import { ErrorBody } from '../core/render';
import { ResourceDefinition, perResource } from '../core/resource';
import { allowedMethods } from './methods';
import { ASSET_URLS } from './html-assets';

/** The policy of every HTML page: its own script, style and images only, no inline code. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
  "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export const HTML_TYPE = 'text/html; charset=utf-8';

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

/** Whether the request is answered with the HTML page (`negotiateFormat` decided). */
export function wantsHtml(res: Response): boolean {
  return res.locals.html === true;
}

/** How the HTML was asked for, as `negotiateFormat` recorded it. */
function askedOf(res: Response): HtmlRequest {
  return (res.locals.htmlAsked as HtmlRequest | undefined) ?? 'accept';
}

/** Title and description of a route, from its OpenAPI operation, looked up once per route. */
const titles = new Map<string, { title: string; description?: string }>();

function describe(req: Request, status: number): { title: string; description?: string } {
  const route = (req.route as { path?: string } | undefined)?.path;
  if (route === undefined || status >= 400) return { title: statusLine(status) };
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

function resourceFor(path: string): ResourceDefinition | undefined {
  return setup.resources.find((r) => path === r.path || path.startsWith(`${r.path}/`));
}

function context(req: Request, res: Response, status: number): PageContext {
  const queryAt = req.originalUrl.indexOf('?');
  const headers: [string, string][] = [];
  for (const name of ['ETag', 'Location', 'Allow', 'Retry-After']) {
    const value = res.getHeader(name);
    if (value !== undefined) headers.push([name, String(value)]);
  }
  const allow = allowedMethods(req);
  if (res.getHeader('Allow') === undefined && allow.length > 0) {
    headers.push(['Allow', allow.join(', ')]);
  }
  const { title, description } = describe(req, status);
  return {
    method: req.method,
    path: req.path,
    query: queryAt === -1 ? '' : req.originalUrl.slice(queryAt + 1),
    origin: `${req.protocol}://${req.get('host')}`,
    asked: askedOf(res),
    status,
    headers,
    title,
    description,
    token: setup.token,
    allow,
    assets: ASSET_URLS,
  };
}

/** The headers of every HTML page. */
export function setHtmlHeaders(res: Response): void {
  res.setHeader('Content-Type', HTML_TYPE);
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
}

/** The HTML page of a handler's result, with its headers set. */
export function htmlResult(
  req: Request,
  res: Response,
  resource: ResourceDefinition | undefined,
  result: unknown,
): string {
  const ctx = context(req, res, res.statusCode);
  if (resource) ctx.actions = actionsOf(resource);
  setHtmlHeaders(res);
  return resultPage(result, resource, ctx);
}

/** The HTML page of an error, with its headers set (the status is the caller's). */
export function htmlError(req: Request, res: Response, status: number, body: ErrorBody): string {
  const ctx = context(req, res, status);
  setHtmlHeaders(res);
  return errorPage(body, resourceFor(req.path), ctx);
}
