/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): a secret is `whsec_` and the
 * base64 of random bytes; a message's signature is `v1,` and the base64 of the HMAC-SHA256, keyed
 * with the secret's bytes, of `<webhook-id>.<webhook-timestamp>.<body>`. While a rotated secret's
 * grace period runs, `webhook-signature` carries both signatures, space-separated.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** Bytes of a new secret: 32 (the standard asks for 24 to 64). */
const SECRET_BYTES = 32;

/** A new secret: `whsec_` + the base64 of 32 random bytes. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The key of a secret: the bytes its base64 stands for. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** One signature, `v1,<base64>`, of `body` sent as message `id` at `timestamp` (Unix seconds). */
export function sign(key: Buffer, id: string, timestamp: number, body: string | Buffer): string {
  const hmac = createHmac('sha256', key).update(`${id}.${timestamp}.`);
  return `v1,${hmac.update(body).digest('base64')}`;
}

/** The `webhook-signature` header: a signature with each key, space-separated. */
export function signatures(
  keys: readonly Buffer[],
  id: string,
  timestamp: number,
  body: string | Buffer,
): string {
  return keys.map((key) => sign(key, id, timestamp, body)).join(' ');
}
