/**
 * Request bodies (CONTRACT §4): JSON, or XML by the §2 conventions in reverse. Installed as
 * Express middleware in place of Nest's body parser, so that every failure (malformed, too large,
 * unsupported type) answers in the negotiated format like any other error.
 */
import { raw, type NextFunction, type Request, type Response } from 'express';
import sax from 'sax';
import { parseStringPromise } from 'xml2js';
import { ApiError } from './api-error';
import { CONTENT_TYPES, formatOf } from './format';
import { encodeError } from './render';

/** Largest body accepted: 1 MiB. */
export const BODY_LIMIT = 1024 * 1024;

/** Requests whose body, if any, is not read. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

const JSON_TYPE = /^application\/([\w.+-]+\+)?json$/;
const XML_TYPES = new Set(['application/xml', 'text/xml']);

export function bodyParsers() {
  return [raw({ type: () => true, limit: BODY_LIMIT }), decodeBody, bodyErrors];
}

function decodeBody(req: Request, _res: Response, next: NextFunction) {
  const bytes = req.body as Buffer | undefined;
  if (!Buffer.isBuffer(bytes) || bytes.length === 0 || READS.has(req.method)) {
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'Malformed JSON in request body.');
  }
}

interface XmlNode {
  '#name': string;
  $?: Record<string, string>;
  _?: string;
  $$?: XmlNode[];
}

/** No DTD at all: no entity can be declared, so none can be expanded (billion laughs, XXE). */
const DOCTYPE = /<!(DOCTYPE|ENTITY)/i;

export async function parseXml(text: string): Promise<unknown> {
  if (DOCTYPE.test(text)) throw new ApiError(400, 'Malformed XML: DTDs are not allowed.');
  if (rootElements(text) !== 1) throw new ApiError(400, 'Malformed XML in request body.');
  let document: Record<string, XmlNode>;
  try {
    document = await parseStringPromise(text, {
      explicitChildren: true,
      preserveChildrenOrder: true,
      explicitCharkey: true,
      strict: true,
    });
  } catch {
    throw new ApiError(400, 'Malformed XML in request body.');
  }
  const root = document && Object.values(document)[0];
  if (!root) throw new ApiError(400, 'Malformed XML in request body.');
  // The root element only frames the document: `<marble>…</marble>` and `<hash>…</hash>` both hold
  // a record; `<hash><marble>…</marble></hash>` is the wrapped form, like `{"marble": {…}}`.
  const empty = !root.$$?.length && !root.$?.type && root.$?.nil !== 'true';
  return empty ? {} : fromXml(root);
}

/**
 * How many top-level elements the document has (-1 if it is not well-formed). xml2js keeps the
 * first and drops the rest, so a second root would otherwise pass unnoticed.
 */
function rootElements(text: string): number {
  const parser = sax.parser(true);
  let depth = 0;
  let roots = 0;
  parser.onopentag = () => {
    if (depth++ === 0) roots++;
  };
  parser.onclosetag = () => {
    depth--;
  };
  parser.onerror = (error) => {
    throw error;
  };
  try {
    parser.write(text).close();
  } catch {
    return -1;
  }
  return roots;
}

function fromXml(node: XmlNode): unknown {
  const attributes = node.$ ?? {};
  if (attributes.nil === 'true') return null;
  if (attributes.type === 'array') return (node.$$ ?? []).map(fromXml);
  if (node.$$ && node.$$.length > 0) {
    // No prototype: an element named `__proto__` is a field like any other (and so unknown).
    const object: Record<string, unknown> = Object.create(null);
    for (const child of node.$$) {
      const key = underscored(child['#name']);
      if (Object.hasOwn(object, key)) {
        throw new ApiError(400, `Malformed XML: element <${child['#name']}> appears twice.`);
      }
      object[key] = fromXml(child);
    }
    return object;
  }
  const text = node._ ?? '';
  switch (attributes.type) {
    case 'integer':
      if (!/^\s*-?\d+\s*$/.test(text)) {
        throw new ApiError(400, `Malformed XML: <${node['#name']}> is not an integer.`);
      }
      return Number(text);
    case 'boolean':
      if (text.trim() !== 'true' && text.trim() !== 'false') {
        throw new ApiError(400, `Malformed XML: <${node['#name']}> is not a boolean.`);
      }
      return text.trim() === 'true';
    default:
      return text;
  }
}

function underscored(name: string): string {
  return name.replace(/-/g, '_');
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
  } else {
    const known = STATUS_BY_TYPE[(error as { type?: string }).type ?? ''];
    if (known) [status, message] = known;
  }
  const format = formatOf(res);
  res.status(status).setHeader('Content-Type', CONTENT_TYPES[format]);
  res.send(encodeError(format, { message }));
}
