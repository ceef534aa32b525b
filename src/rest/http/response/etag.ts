import { hash } from 'node:crypto';

/**
 * Express's weak ETag (`W/"<length in hex>-<27 characters of the SHA-1 in base64>"`, the same
 * validator as its default), hashed in one call rather than through a Hash object per response.
 */
export function weakETag(body: Buffer | string, encoding?: BufferEncoding): string {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, encoding);
  if (bytes.length === 0) return 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
  return `W/"${bytes.length.toString(16)}-${hash('sha1', bytes, 'base64').substring(0, 27)}"`;
}

/** The part of an Express application this module changes. */
interface ExpressApp {
  set(setting: string, value: unknown): unknown;
  response: { send: (this: ExpressResponse, body?: unknown) => unknown };
}

interface ExpressResponse {
  statusCode: number;
  req: { method: string };
  getHeader(name: string): unknown;
  setHeader(name: string, value: string): unknown;
}

/**
 * Express's own ETag is off: it tagged every answer sent with a body, errors included (a 412's
 * tag is a hash of its message, no record's version, and a client that kept it would send it
 * back in If-Match). A record sets its strong ETag itself (its version); any other successful
 * read, a list, a page or a message, gets the weak ETag of its body here, so that If-None-Match
 * still answers 304 for it. Error answers, and writes' answers that are no record, carry none.
 */
export function weakETagsOnSuccessfulReads(app: ExpressApp): void {
  app.set('etag', false);
  const send = app.response.send;
  app.response.send = function (this: ExpressResponse, body?: unknown) {
    const status = this.statusCode;
    const method = this.req.method;
    if (
      status >= 200 &&
      status < 300 &&
      (method === 'GET' || method === 'HEAD') &&
      (typeof body === 'string' || Buffer.isBuffer(body)) &&
      this.getHeader('ETag') === undefined
    ) {
      this.setHeader('ETag', weakETag(body, 'utf8'));
    }
    return send.call(this, body);
  };
}
