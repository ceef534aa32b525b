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
