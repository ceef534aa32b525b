import type { NextFunction, Request, Response } from 'express';
import { encodeError } from './render';

export type Format = 'json' | 'xml';

export const CONTENT_TYPES: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

const SUFFIX = /\.([A-Za-z0-9]+)\/?$/;
const ACCEPTED = ['application/json', 'application/xml', 'text/xml'];

/** The negotiated format of a request, set by `negotiateFormat`. */
export function formatOf(res: Response): Format {
  return (res.locals.format as Format | undefined) ?? 'json';
}

/**
 * Express middleware, first in the chain (CONTRACT §1): path suffix, then `format=`, then the
 * `Accept` header. A suffix is removed from the URL so that routes never see it. An explicit
 * format other than json or xml ends the request with 406.
 */
export function negotiateFormat(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Vary', 'Accept');
  const queryAt = req.url.indexOf('?');
  const path = queryAt === -1 ? req.url : req.url.slice(0, queryAt);
  const suffix = SUFFIX.exec(path);
  let explicit: string | undefined;
  if (suffix) {
    explicit = suffix[1];
    req.url = path.slice(0, suffix.index) + (queryAt === -1 ? '' : req.url.slice(queryAt));
  } else if (queryAt !== -1 && req.url.includes('format=', queryAt)) {
    const format = req.query.format;
    explicit = Array.isArray(format) ? String(format[format.length - 1]) : (format as string);
  }
  if (explicit !== undefined) {
    const format = explicit.toLowerCase();
    if (format !== 'json' && format !== 'xml') {
      res.status(406).type(CONTENT_TYPES.json);
      res.send(encodeError('json', { message: `Format "${explicit}" is not available; use json or xml.` }));
      return;
    }
    res.locals.format = format;
  } else {
    const accept = req.headers.accept;
    const best = accept === undefined || accept === '*/*' ? false : req.accepts(ACCEPTED);
    res.locals.format = best === 'application/xml' || best === 'text/xml' ? 'xml' : 'json';
  }
  next();
}
