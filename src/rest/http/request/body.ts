/**
 * Request bodies: JSON, or XML read by the conventions of the XML responses (`-` for `_` in names,
 * `type` attributes, `nil="true"`, items of a `type="array"` element). Installed as Express
 * middleware in place of Nest's body parser, so that every failure (malformed, too large,
 * unsupported type) answers in the negotiated format like any other error. Both are UTF-8: a
 * `charset` parameter (or an XML declaration's `encoding`) naming another is 415, bytes that are
 * not UTF-8 are 400 with their offset.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import * as zlib from 'node:zlib';
import { raw, type NextFunction, type Request, type Response } from 'express';
import { RecordError } from '../../core/errors';
import { JsonLimits, parseJsonBytes } from '../../core/input/json-input';
import { decodeUtf8 } from '../../core/input/utf8';
import { parseXml, XmlLimits } from '../../core/input/xml-input';
import { ApiError, statusOf } from '../response/api-error';
import { isRead } from '../response/methods';
import { printable, sendError } from '../response/respond';
import type { RefusalPace } from './refusal-pace';

/** Largest body accepted: 1 MiB. */
export const BODY_LIMIT = 1024 * 1024;

const JSON_TYPE = /^application\/([\w.+-]+\+)?json$/;
const XML_TYPES = new Set(['application/xml', 'text/xml']);

/**
 * One middleware: reads (GET, HEAD, OPTIONS) pass straight through with no body; other requests
 * have their bytes read (up to BODY_LIMIT) and decoded, or end with the error in the negotiated
 * format. A body sent as it is (no `Content-Encoding`) is read here (readAsSent), so that a body
 * refused while it arrives leaves nothing of itself behind; a compressed one by Express's reader,
 * which inflates it.
 */
export function bodyParsers(pace?: RefusalPace) {
  const readInflated = raw({ type: () => true, limit: BODY_LIMIT });
  const refuse: Refuse = (res, status, message) => refuseAndClose(res, status, message, pace);
  return (req: Request, res: Response, next: NextFunction) => {
    if (isRead(req.method)) {
      req.body = undefined;
      return next();
    }
    // Refused before a byte of it is read: Express's reader would read (and drop) all of it first.
    if (declaredTooLarge(req)) return refuse(res, 413, TOO_LARGE);
    const done = (error?: unknown) => (error ? bodyErrors(error, req, res, next) : next());
    const read = (error?: unknown) => (error ? done(error) : decodeBody(req, res, done));
    if (identity(req)) readAsSent(req, res, refuse, read);
    else readInflated(req, res, read);
  };
}

/**
 * Reads a body sent as it is into `req.body` (a Buffer; none when empty), then `next()`. Its bytes
 * are counted, and a JSON or XML body's scanned (JsonLimits, XmlLimits), as they arrive: the chunk
 * that passes BODY_LIMIT (a chunked body) is answered 413, the one that passes a limit of the
 * body's own type 400, in the words the whole body's parse would use, at once and with the
 * connection closed (refuseAndClose). A hostile body thus costs its first chunks, and its sender a
 * new connection.
 */
function readAsSent(
  req: IncomingMessage & { body?: unknown },
  res: Response,
  refuse: Refuse,
  next: (error?: unknown) => void,
): void {
  const limits = limitsOf(req);
  const chunks: Buffer[] = [];
  let length = 0;
  const onData = (chunk: Buffer) => {
    length += chunk.length;
    const exceeded = length > BODY_LIMIT ? TOO_LARGE : limits?.write(chunk);
    if (exceeded === undefined) return void chunks.push(chunk);
    stop();
    // Nothing of the body is kept while its connection closes.
    chunks.length = 0;
    if (!res.headersSent) refuse(res, exceeded === TOO_LARGE ? 413 : 400, exceeded);
  };
  const onEnd = () => {
    stop();
    req.body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length);
    next();
  };
  const onAborted = () => {
    stop();
    res.locals[CUT_OFF] = true;
    next(new ApiError(400, CUT_SHORT));
  };
  const stop = () => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('aborted', onAborted);
    req.off('error', onAborted);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('aborted', onAborted);
  req.on('error', onAborted);
}

/** The scan of a body's type (JSON, XML) in UTF-8 (another charset is 415, once read), if any. */
function limitsOf(req: IncomingMessage): JsonLimits | XmlLimits | undefined {
  const { contentType, type } = mediaTypeOf(req);
  const charset = CHARSET.exec(contentType);
  if (charset && (charset[1] ?? charset[2]).toLowerCase() !== 'utf-8') return undefined;
  if (JSON_TYPE.test(type)) return new JsonLimits();
  return XML_TYPES.has(type) ? new XmlLimits() : undefined;
}

/** The request's Content-Type as sent, and its media type alone, in lower case. */
function mediaTypeOf(req: IncomingMessage): { contentType: string; type: string } {
  const contentType = req.headers['content-type'] ?? '';
  return { contentType, type: contentType.split(';')[0].trim().toLowerCase() };
}

function decodeBody(req: Request, res: Response, next: (error?: unknown) => void) {
  const bytes = req.body as Buffer | undefined;
  // The bytes of a request with an Idempotency-Key are part of its fingerprint.
  if (req.headers['idempotency-key'] !== undefined) res.locals.rawBody = bytes;
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) {
    req.body = undefined;
    return next();
  }
  const { contentType, type } = mediaTypeOf(req);
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
const CUT_SHORT = 'Request body was cut short.';

/**
 * `res.locals` key: the client ended the connection before its body was whole. The 400 that
 * follows may still be written into the half-closed socket, or not, as the two sides race; the
 * access line (logging.ts) says "aborted" either way.
 */
export const CUT_OFF = 'bodyCutOff';

/** Whether the body is sent as it is (no `Content-Encoding`, or `identity`). */
function identity(req: IncomingMessage): boolean {
  const encoding = req.headers['content-encoding'];
  return encoding === undefined || encoding.trim().toLowerCase() === 'identity';
}

/** How long the connection of a refused body stays, at most, after its FIN, before it is destroyed. */
const LINGER_MS = 2000;

/** A body's refusal while it arrives (refuseAndClose, at the pace of its peer's refusals). */
type Refuse = (res: Response, status: number, message: string) => void;

/**
 * A body's refusal while it arrives: no more of it is read, then the answer with `Connection:
 * close` (the client opens a new connection for its next request), and the connection ends
 * (closeAfter). Node would close the socket at once on that header, the body unread, and the
 * client's system could then discard the answer on the reset that follows: closeAfter does it.
 * The answer waits its turn when the peer's refusals come faster than `pace` allows; a peer too
 * far over gets none, its connection closed at once.
 */
function refuseAndClose(
  res: Response,
  status: number,
  message: string,
  pace: RefusalPace | undefined,
): void {
  res.locals.bodyRefused = true;
  res.req.pause();
  // A refused body's connection does not keep the process alive (a worker that stops, a test).
  res.req.socket.unref();
  const wait = pace ? pace.wait(res.req.ip ?? res.req.socket.remoteAddress ?? '') : 0;
  if (wait === undefined) res.req.socket.destroy();
  else if (wait === 0) answerRefusal(res, status, message);
  else setTimeout(answerRefusal, wait, res, status, message).unref();
}

function answerRefusal(res: Response, status: number, message: string): void {
  // Gone while it waited: nothing to answer.
  if (res.req.socket.destroyed) return;
  res.setHeader('Connection', 'close');
  sendError(res, status, { message });
  // Node's own close on `Connection: close` (it is written by now), left to closeAfter.
  (res as unknown as { _last: boolean })._last = false;
  closeAfter(res);
}

/**
 * Ends the connection once `res` is sent: a FIN (the client stops sending), no more read of what
 * it sends meanwhile, and the socket destroyed LINGER_MS later at most.
 */
function closeAfter(res: Response): void {
  const { req } = res;
  const socket = req.socket;
  res.once('finish', () => {
    // The connection's parser holds the request (with its answer, and any chunk that came
    // meanwhile) until the socket closes: it lets go of it here, as Node's does at a request's
    // end, so that only the socket waits out its linger.
    const parser = (socket as { parser?: { incoming: unknown } | null }).parser;
    if (parser?.incoming === req) parser.incoming = null;
    // No more of the body is read (the parser, without its request, would read it all).
    socket.pause();
    lingerOut(socket);
  });
}

/**
 * The FIN now, the socket destroyed LINGER_MS later at most. Only the socket is held meanwhile,
 * not the request or its answer: a flood of refused bodies keeps little alive.
 */
function lingerOut(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
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
  'request.aborted': [400, CUT_SHORT],
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
    const { type = '' } = error as { type?: string };
    if (type === 'request.aborted') res.locals[CUT_OFF] = true;
    const known = STATUS_BY_TYPE[type];
    if (known) [status, message] = known;
  }
  sendError(res, status, { message });
}
