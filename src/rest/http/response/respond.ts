import type { Request, Response } from 'express';
import { ErrorBody, RequestUrl, ResponseHeaders } from '../../core/output/render';
import { PageRequest } from '../browsable/html-context';
import { pageRequest } from '../browsable/html-page';
import { PageRenderRequest } from '../browsable/html-renderer';
import { allowedMethods } from './methods';
import { Format, renderError } from './renderers';

/** The negotiated format of a request, set by `negotiateFormat`. */
export function formatOf(res: Response): Format {
  return (res.locals.format as Format | undefined) ?? 'json';
}

/** An Express request as the renderers see it; nothing is worked out before it is asked for. */
export class ExpressRenderRequest implements PageRenderRequest {
  constructor(
    private readonly req: Request,
    readonly status: number,
  ) {}

  get method(): string {
    return this.req.method;
  }

  url(): RequestUrl {
    return requestUrl(this.req);
  }

  pathUrl(): string {
    return `${linkOrigin(this.req)}${this.req.path.replace(/\/$/, '')}`;
  }

  allowedMethods(): string[] {
    return allowedMethods(this.req);
  }

  page(): PageRequest {
    return pageRequest(this.req);
  }
}

/** The request's URL as the client sent it (format suffix included), split at the query. */
export function requestUrl(req: Request): RequestUrl {
  const original = req.originalUrl;
  const queryAt = original.indexOf('?');
  return {
    base: `${linkOrigin(req)}${queryAt === -1 ? original : original.slice(0, queryAt)}`,
    query: queryAt === -1 ? '' : original.slice(queryAt + 1),
  };
}

const LINK_ORIGIN = Symbol('link origin');
type WithLinkOrigin = Request & { [LINK_ORIGIN]?: string };

/** Gives `req` the origin of its absolute links (`checkHost`: PUBLIC_URL or its allowed host). */
export function setLinkOrigin(req: Request, origin: string): void {
  (req as WithLinkOrigin)[LINK_ORIGIN] = origin;
}

/**
 * The origin of `req`'s links: the one `checkHost` gave it, or (an application set up without
 * it) the request's own scheme and Host.
 */
export function linkOrigin(req: Request): string {
  return (req as WithLinkOrigin)[LINK_ORIGIN] ?? `${req.protocol}://${req.get('host')}`;
}

/**
 * Ends a request with an error: `{message, errors?}` in the negotiated format, never a stack
 * trace or driver text. Every error response leaves through here, from middleware and from the
 * exception filter.
 */
export function sendError(
  res: Response,
  status: number,
  body: ErrorBody,
  headers: ResponseHeaders = {},
): void {
  const rendered = renderError(
    formatOf(res),
    { status, body, headers },
    new ExpressRenderRequest(res.req, status),
  );
  res.status(status);
  // An error is never kept by a cache: the next try must reach the service.
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
  res.send(rendered.body);
}

/** `text` for an error message: printable ASCII, at most 100 characters. */
export function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
}
