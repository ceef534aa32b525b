import type { Request } from 'express';

/**
 * What a request carries in `Authorization` (RFC 6750 §2.1): no bearer token, a token, or a
 * header that is not a well-formed bearer credential. A token anywhere else (the query string's
 * `access_token`, RFC 6750 §2.3) is never taken: URLs end up in logs, histories and Referer.
 */
export type Credentials =
  { kind: 'none' } | { kind: 'token'; token: string } | { kind: 'malformed'; description: string };

const NONE: Credentials = { kind: 'none' };

/** `Bearer <b64token>`: the scheme in any case, one space or more, the token, nothing after. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const SCHEME = /^Bearer(?: |$)/i;

export function credentialsOf(req: Request): Credentials {
  const header = req.headers.authorization;
  if (header === undefined) {
    return queryToken(req.url)
      ? {
          kind: 'malformed',
          description: 'a token in the URL is not accepted; send it in the Authorization header',
        }
      : NONE;
  }
  const match = BEARER.exec(header);
  if (match) return { kind: 'token', token: match[1] };
  if (!SCHEME.test(header)) return NONE;
  return { kind: 'malformed', description: 'the Authorization header is not Bearer <token>' };
}

/** Whether the query string names `access_token` (RFC 6750's URI form). */
function queryToken(url: string): boolean {
  const at = url.indexOf('?');
  return at !== -1 && /(?:^|&)access_token=/.test(url.slice(at + 1));
}
