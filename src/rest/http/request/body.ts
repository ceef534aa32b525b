/**
 * Request bodies: JSON, or XML read by the conventions of the XML responses (`-` for `_` in names,
 * `type` attributes, `nil="true"`, items of a `type="array"` element). Installed as Express
 * middleware in place of Nest's body parser, so that every failure (malformed, too large,
 * unsupported type) answers in the negotiated format like any other error. Both are UTF-8: a
 * `charset` parameter (or an XML declaration's `encoding`) naming another is 415, bytes that are
 * not UTF-8 are 400 with their offset.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import * as zlib from 'node:zlib';
import { raw, type NextFunction, type Request, type Response } from 'express';
import { RecordError } from '../../core/errors';
import { JsonLimits, parseJsonBytes } from '../../core/input/json-input';
import { decodeUtf8 } from '../../core/input/utf8';
import { parseXml, XmlLimits } from '../../core/input/xml-input';
import { ApiError, statusOf } from '../response/api-error';
import { isRead } from '../response/methods';
import { printable, sendError } from '../response/respond';

/** Largest body accepted: 1 MiB. */
export const BODY_LIMIT = 1024 * 1024;

const JSON_TYPE = /^application\/([\w.+-]+\+)?json$/;
const XML_TYPES = new Set(['application/xml', 'text/xml']);

/**
 * One middleware: reads (GET, HEAD, OPTIONS) pass straight through with no body; other requests
 * have their bytes read (up to BODY_LIMIT) and decoded, or end with the error in the negotiated
 * format.
 */
export function bodyParsers() {
  const readBytes = raw({ type: () => true, limit: BODY_LIMIT });
  return (req: Request, res: Response, next: NextFunction) => {
    if (isRead(req.method)) {
      req.body = undefined;
      return next();
    }
    // Refused before a byte of it is read: Express's reader would read (and drop) all of it first.
    if (declaredTooLarge(req)) return refuseTooLarge(res);
    // Without a length (chunked): refused as soon as it is over, not once it has all arrived.
    if (req.headers['content-length'] === undefined && identity(req)) refuseWhenOver(req, res);
    // A JSON or XML body past a limit of its own: refused at the chunk that passes it.
    refuseAtLimit(req, res);
    const done = (error?: unknown) => (error ? bodyErrors(error, req, res, next) : next());
    readBytes(req, res, (error?: unknown) => {
      // Already answered while it arrived: the route never sees it.
      if (res.locals.bodyRefused) return;
      if (error) done(error);
      else decodeBody(req, res, done);
    });
  };
}

function decodeBody(req: Request, res: Response, next: (error?: unknown) => void) {
  const bytes = req.body as Buffer | undefined;
  // The bytes of a request with an Idempotency-Key are part of its fingerprint.
  if (req.headers['idempotency-key'] !== undefined) res.locals.rawBody = bytes;
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) {
    req.body = undefined;
    return next();
  }
  const contentType = req.headers['content-type'] ?? '';
  const type = contentType.split(';')[0].trim().toLowerCase();
  const json = JSON_TYPE.test(type);
  if (json || XML_TYPES.has(type)) {
    let text = '';
    try {
      const charset = CHARSET.exec(contentType);
      if (charset) acceptCharset(charset[1] ?? charset[2]);
      // JSON: its limits on the bytes first, decoded only within them.
      if (json) req.body = parseJsonBytes(bytes, () => decodeUtf8(bytes));
      else {
        text = decodeUtf8(bytes);
        const declared = XML_ENCODING.exec(text);
        if (declared) acceptCharset(declared[1]);
      }
    } catch (error) {
      return next(error);
    }
    if (json) return next();
    parseXml(text).then((value) => {
      req.body = value;
      next();
    }, next);
  } else {
    next(
      new ApiError(
        415,
        `Content type "${type || '(none)'}" is not supported; send application/json or application/xml.`,
      ),
    );
  }
}

/**
 * Whether the request says (`Content-Length`) its body is larger than BODY_LIMIT. A compressed
 * body (`Content-Encoding`) is measured as it is inflated, as before.
 */
function declaredTooLarge(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length === undefined || length.length > 15) return length !== undefined;
  return identity(req) && Number(length) > BODY_LIMIT;
}

const TOO_LARGE = `Request body is larger than ${BODY_LIMIT} bytes.`;

/** Whether the body is sent as it is (no `Content-Encoding`, or `identity`). */
function identity(req: IncomingMessage): boolean {
  const encoding = req.headers['content-encoding'];
  return encoding === undefined || encoding.trim().toLowerCase() === 'identity';
}

/**
 * Counts a body's bytes as they arrive, beside Express's reader, and answers 413 the moment they
 * pass BODY_LIMIT: that reader would read the rest to its end before reporting it.
 */
function refuseWhenOver(req: IncomingMessage, res: Response): void {
  let seen = 0;
  const count = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen <= BODY_LIMIT) return;
    req.off('data', count);
    if (!res.headersSent) refuseTooLarge(res);
  };
  req.on('data', count);
  req.once('end', () => req.off('data', count));
}

/**
 * Scans a JSON or XML body's chunks as they arrive (JsonLimits, XmlLimits) and answers its 400 at
 * the first limit passed, in the words the whole body's parse would use, then closes the
 * connection: a sender of hostile bodies pays a new connection for each, and the service neither
 * reads nor keeps the rest. Only a body sent as it is, in UTF-8 (a `charset` naming another is
 * 415, first).
 */
function refuseAtLimit(req: IncomingMessage, res: Response): void {
  if (!identity(req)) return;
  const contentType = req.headers['content-type'] ?? '';
  const type = contentType.split(';')[0].trim().toLowerCase();
  const charset = CHARSET.exec(contentType);
  if (charset && (charset[1] ?? charset[2]).toLowerCase() !== 'utf-8') return;
  const limits = JSON_TYPE.test(type)
    ? new JsonLimits()
    : XML_TYPES.has(type)
      ? new XmlLimits()
      : undefined;
  if (!limits) return;
  const scan = (chunk: Buffer) => {
    const exceeded = limits.write(chunk);
    if (exceeded === undefined) return;
    req.off('data', scan);
    if (!res.headersSent) refuseAndClose(res, 400, exceeded);
  };
  req.on('data', scan);
  req.once('end', () => req.off('data', scan));
}

/** How long the connection of a refused body stays, at most, after its FIN, before it is destroyed. */
const LINGER_MS = 2000;

/**
 * 413 at once, then the connection is closed (a FIN: the client stops sending), reading no more
 * of what the client sends meanwhile; the socket is destroyed after LINGER_MS at most.
 */
function refuseTooLarge(res: Response): void {
  // Express's reader, still at work on a body refused while it arrived, ends in an error of its
  // own later: already answered (bodyErrors).
  refuseAndClose(res, 413, TOO_LARGE);
}

/**
 * A body's refusal while it arrives: the answer with `Connection: close` (the client opens a new
 * connection for its next request), then no more of the body is read, and the connection ends
 * (closeAfter). Node would close the socket at once on that header, the body unread, and the
 * client's system could then discard the answer on the reset that follows: closeAfter does it.
 */
function refuseAndClose(res: Response, status: number, message: string): void {
  res.locals.bodyRefused = true;
  res.setHeader('Connection', 'close');
  sendError(res, status, { message });
  // Node's own close on `Connection: close` (it is written by now), left to closeAfter.
  (res as unknown as { _last: boolean })._last = false;
  res.req.pause();
  closeAfter(res);
}

/** Ends the connection once `res` is sent, lingering (see refuseTooLarge). */
function closeAfter(res: Response): void {
  res.once('finish', () => {
    const socket = res.req.socket;
    if (socket.destroyed) return;
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}

/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): the client waits for `100 Continue` before it sends
 * the body. Node sends it at once unless the server listens for 'checkContinue'; here, a body whose
 * `Content-Length` is over BODY_LIMIT gets no `100 Continue`: the request goes on without it, and
 * is answered 413 (or whatever comes first: 401, 429) without its body ever being sent. Any other
 * gets its `100 Continue` as before.
 */
export function answerExpectContinue(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (!declaredTooLarge(req)) res.writeContinue();
    server.emit('request', req, res);
  });
}

/** The `charset` parameter of a Content-Type, quoted or not. */
const CHARSET = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;
/** The encoding an XML declaration names (`<?xml version="1.0" encoding="ISO-8859-1"?>`). */
const XML_ENCODING = /^\uFEFF?<\?xml\s[^>]*?\bencoding\s*=\s*["']([^"']*)["']/;

/** A body is read as UTF-8 only: one that says it is in another character set is 415. */
function acceptCharset(charset: string): void {
  if (charset.toLowerCase() === 'utf-8') return;
  throw new ApiError(415, `Character set "${printable(charset)}" is not supported; send UTF-8.`);
}

/**
 * What Express's body reader inflates (`Content-Encoding`), besides none (`identity`): zstd too
 * where the running Node's zlib has it (Node 23.8 and newer), as body-parser checks.
 */
export const CONTENT_ENCODINGS =
  'createZstdDecompress' in zlib ? 'gzip, deflate, br or zstd' : 'gzip, deflate or br';

const STATUS_BY_TYPE: Record<string, [number, string]> = {
  'entity.too.large': [413, TOO_LARGE],
  'encoding.unsupported': [
    415,
    `Content encoding is not supported; send the body as it is, or compressed with ${CONTENT_ENCODINGS}.`,
  ],
  'request.aborted': [400, 'Request body was cut short.'],
  'request.size.invalid': [400, 'Request body does not match its Content-Length.'],
};

/** A zlib error (gzip, deflate: `Z_DATA_ERROR`; brotli: `ERR__ERROR_FORMAT_…`) of the inflation. */
function inflateFailed(error: unknown): boolean {
  return /^(Z_|ERR__ERROR_)/.test(String((error as { code?: unknown }).code));
}

/** Express error handler for the parsers above; errors raised in routes go to Nest's filter. */
function bodyErrors(error: unknown, req: Request, res: Response, next: NextFunction) {
  if (res.headersSent) return res.locals.bodyRefused ? undefined : next(error);
  let status = 400;
  let message = 'Request body could not be read.';
  if (error instanceof ApiError) {
    status = error.getStatus();
    message = error.message;
  } else if (error instanceof RecordError) {
    status = statusOf(error);
    message = error.message;
  } else if (inflateFailed(error)) {
    // zlib could not inflate it: the bytes are not what Content-Encoding says they are.
    const encoding = printable(String(req.headers['content-encoding'] ?? ''));
    message =
      `Request body is not ${encoding} data, as its Content-Encoding says; send it compressed ` +
      'that way, or without Content-Encoding.';
  } else {
    const known = STATUS_BY_TYPE[(error as { type?: string }).type ?? ''];
    if (known) [status, message] = known;
  }
  sendError(res, status, { message });
}
