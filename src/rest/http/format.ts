import type { NextFunction, Request, Response } from 'express';
import { Format } from '../core/render';
import { sendError } from './respond';

const SUFFIX = /\.([A-Za-z][A-Za-z0-9]*)\/?$/;
/** Routes that take a format suffix: the collections and health, not the documentation pages. */
const SUFFIXED = /^\/(api\/(demo|plain)|health)\//;

/**
 * Express middleware, first in the chain (CONTRACT §1): path suffix, then `format=`, then the
 * `Accept` header. A suffix is removed from the URL so that routes never see it. An explicit
 * format other than json or xml ends the request with 406.
 */
export function negotiateFormat(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Vary', 'Accept');
  const queryAt = req.url.indexOf('?');
  const path = queryAt === -1 ? req.url : req.url.slice(0, queryAt);
  const suffix = SUFFIXED.test(path) ? SUFFIX.exec(path) : null;
  let explicit: string | undefined;
  if (suffix) {
    explicit = suffix[1];
    req.url = path.slice(0, suffix.index) + (queryAt === -1 ? '' : req.url.slice(queryAt));
  } else if (queryAt !== -1 && req.url.includes('format=', queryAt)) {
    const format = req.query.format;
    explicit = Array.isArray(format) ? String(format[format.length - 1]) : (format as string);
    if (explicit === '') explicit = undefined;
  }
  if (explicit !== undefined) {
    const format = explicit.toLowerCase();
    if (format !== 'json' && format !== 'xml') {
      sendError(res, 406, { message: `Format "${explicit}" is not available; use json or xml.` });
      return;
    }
    res.locals.format = format;
  } else {
    const accept = req.headers.accept;
    res.locals.format = accept === undefined || accept === '*/*' ? 'json' : fromAccept(accept);
  }
  next();
}

/**
 * The format an Accept header prefers: each format takes the q-value of the most specific range
 * that matches it (`application/xml` over `application/*` over `*\/*`); the higher q wins, then
 * the more specific match, then the earlier range, then JSON. Media-type parameters other than q
 * (`charset=utf-8`) do not stop a range from matching.
 */
export function fromAccept(header: string): Format {
  let json = { q: 0, specificity: -1, position: Infinity };
  let xml = { q: 0, specificity: -1, position: Infinity };
  header.split(',').forEach((range, position) => {
    const [type, ...params] = range.split(';');
    const mediaType = type.trim().toLowerCase();
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name.trim().toLowerCase() === 'q') q = Number(value);
    }
    if (!(q >= 0 && q <= 1)) q = 0;
    const candidate = (specificity: number) => ({ q, specificity, position });
    const better = (current: typeof json, specificity: number) =>
      specificity > current.specificity ? candidate(specificity) : current;
    if (mediaType === 'application/json') json = better(json, 2);
    else if (mediaType === 'application/xml' || mediaType === 'text/xml') xml = better(xml, 2);
    else if (mediaType === 'application/*') {
      json = better(json, 1);
      xml = better(xml, 1);
    } else if (mediaType === 'text/*') xml = better(xml, 1);
    else if (mediaType === '*/*') {
      json = better(json, 0);
      xml = better(xml, 0);
    }
  });
  if (xml.q === 0) return 'json';
  if (xml.q !== json.q) return xml.q > json.q ? 'xml' : 'json';
  if (xml.specificity !== json.specificity)
    return xml.specificity > json.specificity ? 'xml' : 'json';
  return xml.position < json.position ? 'xml' : 'json';
}
