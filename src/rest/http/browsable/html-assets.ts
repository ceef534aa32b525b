import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import { PageAssets } from './html-context';

/** Where the browsable API's static files are served from. */
export const ASSETS_PREFIX = '/assets/';

interface Asset {
  body: Buffer;
  type: string;
}

const FILES: [keyof PageAssets, string, string][] = [
  ['script', 'browsable.js', 'text/javascript; charset=utf-8'],
  ['style', 'browsable.css', 'text/css; charset=utf-8'],
  ['icon', 'favicon.svg', 'image/svg+xml'],
  ['live', 'live.js', 'text/javascript; charset=utf-8'],
  ['feed', 'feed.js', 'text/javascript; charset=utf-8'],
];

/**
 * The page's scripts, stylesheet and icon, read and hashed once at start: each is served under a
 * name that carries its content's hash (`/assets/browsable.3f2a9c1b0d.js`), so it can be cached
 * for a year and a new version is a new URL.
 */
function load(): { urls: PageAssets; byUrl: Map<string, Asset> } {
  const urls = {} as PageAssets;
  const byUrl = new Map<string, Asset>();
  for (const [key, file, type] of FILES) {
    const body = readFileSync(join(__dirname, 'assets', file));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const dot = file.lastIndexOf('.');
    const url = `${ASSETS_PREFIX}${file.slice(0, dot)}.${hash}${file.slice(dot)}`;
    urls[key] = url;
    byUrl.set(url, { body, type });
  }
  return { urls, byUrl };
}

const ASSETS = load();

/** The hashed URLs of the page's static files. */
export const ASSET_URLS: PageAssets = ASSETS.urls;

/** Express middleware serving the static files under their hashed names, cached for a year. */
export function serveAssets(req: Request, res: Response, next: NextFunction): void {
  if (!req.path.startsWith(ASSETS_PREFIX)) return next();
  const asset = ASSETS.byUrl.get(req.path);
  if (!asset || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
  res.setHeader('Content-Type', asset.type);
  res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', asset.body.length);
  res.status(200);
  if (req.method === 'HEAD') res.end();
  else res.end(asset.body);
}
