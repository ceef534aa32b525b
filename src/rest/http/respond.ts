import type { Request, Response } from 'express';
import {
  ErrorBody,
  Format,
  RenderRequest,
  RequestUrl,
  ResponseHeaders,
  renderError,
} from '../core/render';
import { allowedMethods } from './methods';

/** The negotiated format of a request, set by `negotiateFormat`. */
export function formatOf(res: Response): Format {
  return (res.locals.format as Format | undefined) ?? 'json';
}

/** An Express request as the renderers see it; nothing is worked out before it is asked for. */
export class ExpressRenderRequest implements RenderRequest {
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
    return `${origin(this.req)}${this.req.path.replace(/\/$/, '')}`;
  }

  allowedMethods(): string[] {
    return allowedMethods(this.req);
  }
}

/** The request's URL as the client sent it (format suffix included), split at the query. */
export function requestUrl(req: Request): RequestUrl {
  const original = req.originalUrl;
  const queryAt = original.indexOf('?');
  return {
    base: `${origin(req)}${queryAt === -1 ? original : original.slice(0, queryAt)}`,
    query: queryAt === -1 ? '' : original.slice(queryAt + 1),
  };
}

function origin(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
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
  for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
  res.send(rendered.body);
}
