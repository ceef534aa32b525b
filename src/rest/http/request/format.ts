import type { NextFunction, Request, Response } from 'express';
import { Format } from '../response/renderers';
import { sendError } from '../response/respond';

const SUFFIX = /\.([A-Za-z][A-Za-z0-9]*)\/?$/;
/**
 * Routes that take a format suffix: the collections (their change feeds too), the webhooks, atomic operations, health, the front
 * door (`/api.xml`) and the change feed of every collection (`/api/events.xml`), not the
 * documentation pages (`/api/openapi.json` is a file name, not a suffix).
 */
const SUFFIXED =
  /^\/(api\/(demo|plain)\/|health\/|api\.|api\/events\.|api\/webhooks[./]|api\/operations\.)/;
/**
 * Routes that answer CSV to a GET or HEAD: the collections (their lists, records and probes). Not
 * their change feeds (`…/events`): an event carries a whole record, which has no fixed columns, so
 * CSV is not offered there (`.csv` is 406, `Accept: text/csv` gets JSON).
 */
const TABULAR = /^\/api\/(demo|plain)\/(?![^/]+\/events(\.[^/]*)?\/?$)/;

/**
 * Express middleware, first in the chain: path suffix, then `format=`, then the `Accept` header.
 * A suffix is removed from the URL so that routes never see it. An explicit format other than
 * json or xml (or html, for a GET or HEAD while the browsable API is on) ends the request with
 * 406. For the HTML page, `res.locals.htmlAsked` says how it was asked for (the page's links
 * ask for HTML the same way).
 */
export function negotiateFormat(options: {
  /** Whether the browsable API is on (BROWSABLE_API). */
  browsable: boolean;
}): (req: Request, res: Response, next: NextFunction) => void {
  const { browsable } = options;
  return (req, res, next) => {
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
    const tabular = pageMethod(req.method) && TABULAR.test(path);
    if (explicit !== undefined) {
      // A suffix or `format=` wins over Accept: no stream for `/api/events.xml` (formatIsExplicit).
      res.locals.explicitFormat = true;
      const format = explicit.toLowerCase();
      const page = format === 'html' && browsable && pageMethod(req.method);
      const csv = format === 'csv' && tabular;
      if (format !== 'json' && format !== 'xml' && !page && !csv) {
        // A JSON body, except for a browser that asked for the page: it gets the 406 page.
        const accept = req.headers.accept;
        if (accept !== undefined && negotiate(accept, req.method, browsable) === 'html') {
          res.locals.format = 'html';
          res.locals.htmlAsked = 'accept';
        }
        const message =
          format === 'csv'
            ? 'CSV answers reads (GET) of the collections only; use json or xml.'
            : `Format "${explicit}" is not available; use ${tabular ? 'json, xml or csv' : 'json or xml'}.`;
        sendError(res, 406, { message });
        return;
      }
      if (page) {
        res.locals.format = 'html';
        res.locals.htmlAsked = suffix ? 'suffix' : 'query';
      } else res.locals.format = format;
    } else {
      const accept = req.headers.accept;
      res.locals.format =
        accept === undefined || accept === '*/*'
          ? 'json'
          : negotiate(accept, req.method, browsable);
      if (res.locals.format === 'html') res.locals.htmlAsked = 'accept';
      else if (tabular && accept !== undefined && prefersCsv(accept)) res.locals.format = 'csv';
    }
    next();
  };
}

/** Whether the request named its format by a suffix or `format=` (which wins over Accept). */
export function formatIsExplicit(res: Response): boolean {
  return res.locals.explicitFormat === true;
}

const STREAM_RANGE = /text\/event-stream/i;

/**
 * Whether an Accept header asks for Server-Sent Events: it names `text/event-stream` itself
 * (never through `text/*` or `*\/*`) with a q above 0 and no other range above it (a tie goes to
 * the stream: a client that names it among its first choices is a stream's client). `q=0` is a
 * refusal of the type: such a request gets the page, in the format the rest of Accept asks for.
 */
export function prefersStream(header: string): boolean {
  if (!STREAM_RANGE.test(header)) return false;
  const ranges = parseRanges(header);
  const stream = ranges.find((r) => r.type === 'text/event-stream');
  if (stream === undefined || stream.q === 0) return false;
  return ranges.every((r) => r.q <= stream.q);
}

function pageMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

/**
 * The answer an Accept header asks for. HTML only when the header names `text/html` itself
 * (not through `text/*` or `*\/*`) and ranks it above the JSON or XML fromAccept picks: a higher
 * q, or the same q with a less specific or later range for the other. Then a GET or HEAD gets the
 * page while the browsable API is on, and anything else JSON: a browser never falls into XML.
 */
export function negotiate(header: string, method: string, pages: boolean): Format {
  // API clients name no text/html: their Accept is parsed once, as before the pages existed.
  if (!HTML_RANGE.test(header)) return fromAccept(header);
  const ranges = parseRanges(header);
  const html = ranges.find((r) => r.type === 'text/html');
  const other = fromAccept(header);
  if (html === undefined || html.q === 0) return other;
  let rival = { q: 0, specificity: -1, position: Infinity };
  for (const range of ranges) {
    const specificity = specificityFor(other, range.type);
    if (specificity > rival.specificity) rival = { ...range, specificity };
  }
  if (rival.specificity < 0) rival.q = 0;
  const preferred =
    html.q > rival.q ||
    (html.q === rival.q && (rival.specificity < 2 || html.position < rival.position));
  if (!preferred) return other;
  return pages && pageMethod(method) ? 'html' : 'json';
}

const HTML_RANGE = /text\/html/i;
const CSV_RANGE = /text\/csv/i;

/**
 * Whether an Accept header asks for CSV: it names `text/csv` itself (never through `text/*` or
 * `*\/*`, which keep answering what they answered before) with a q above every other range, or
 * the same q and listed before them.
 */
export function prefersCsv(header: string): boolean {
  if (!CSV_RANGE.test(header)) return false;
  const ranges = parseRanges(header);
  const csv = ranges.find((r) => r.type === 'text/csv');
  if (csv === undefined || csv.q === 0) return false;
  return ranges.every(
    (r) => r === csv || r.q < csv.q || (r.q === csv.q && r.position > csv.position),
  );
}

interface Range {
  type: string;
  q: number;
  position: number;
}

/** The media ranges of an Accept header, lower-cased, with their q-values (0 when malformed). */
function parseRanges(header: string): Range[] {
  return header.split(',').map((range, position) => {
    const [type, ...params] = range.split(';');
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name.trim().toLowerCase() === 'q') q = Number(value);
    }
    if (!(q >= 0 && q <= 1)) q = 0;
    return { type: type.trim().toLowerCase(), q, position };
  });
}

/** How specifically a media range names a format: 2 exactly, 1 by its type, 0 `*\/*`, -1 not. */
function specificityFor(format: 'json' | 'xml', type: string): number {
  if (
    format === 'json'
      ? type === 'application/json'
      : type === 'application/xml' || type === 'text/xml'
  )
    return 2;
  if (type === 'application/*' || (format === 'xml' && type === 'text/*')) return 1;
  return type === '*/*' ? 0 : -1;
}

/**
 * The format an Accept header prefers: each format takes the q-value of the most specific range
 * that matches it (`application/xml` over `application/*` over `*\/*`); the higher q wins, then
 * the more specific match, then the earlier range, then JSON. Media-type parameters other than q
 * (`charset=utf-8`) do not stop a range from matching.
 */
export function fromAccept(header: string): 'json' | 'xml' {
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
