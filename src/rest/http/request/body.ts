/**
 * Request bodies: JSON, or XML read by the conventions of the XML responses (`-` for `_` in names,
 * `type` attributes, `nil="true"`, items of a `type="array"` element). Installed as Express
 * middleware in place of Nest's body parser, so that every failure (malformed, too large,
 * unsupported type) answers in the negotiated format like any other error.
 */
import { raw, type NextFunction, type Request, type Response } from 'express';
import { RecordError } from '../../core/errors';
import { parseJson } from '../../core/json-input';
import { parseXml } from '../../core/xml-input';
import { ApiError, statusOf } from '../response/api-error';
import { isRead } from '../response/methods';
import { sendError } from '../response/respond';

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
    const done = (error?: unknown) => (error ? bodyErrors(error, req, res, next) : next());
    readBytes(req, res, (error?: unknown) => (error ? done(error) : decodeBody(req, res, done)));
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
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (JSON_TYPE.test(type)) {
    try {
      req.body = parseJson(bytes.toString('utf8'));
      next();
    } catch (error) {
      next(error);
    }
  } else if (XML_TYPES.has(type)) {
    parseXml(bytes.toString('utf8')).then((value) => {
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

const STATUS_BY_TYPE: Record<string, [number, string]> = {
  'entity.too.large': [413, `Request body is larger than ${BODY_LIMIT} bytes.`],
  'encoding.unsupported': [415, 'Content encoding is not supported.'],
  'charset.unsupported': [415, 'Character set is not supported; send UTF-8.'],
  'request.aborted': [400, 'Request body was cut short.'],
  'request.size.invalid': [400, 'Request body does not match its Content-Length.'],
};

/** Express error handler for the parsers above; errors raised in routes go to Nest's filter. */
function bodyErrors(error: unknown, _req: Request, res: Response, next: NextFunction) {
  if (res.headersSent) return next(error);
  let status = 400;
  let message = 'Request body could not be read.';
  if (error instanceof ApiError) {
    status = error.getStatus();
    message = error.message;
  } else if (error instanceof RecordError) {
    status = statusOf(error);
    message = error.message;
  } else {
    const known = STATUS_BY_TYPE[(error as { type?: string }).type ?? ''];
    if (known) [status, message] = known;
  }
  sendError(res, status, { message });
}
