/**
 * The request line and Host as RFC 9112 reads them, before anything routes on the path or builds
 * a link from the host.
 *
 * - origin-form (`/api/demo/marbles?page=2`): as it is.
 * - absolute-form (`http://api.example.com/api/demo/marbles?page=2`, what a client sends to a
 *   proxy): the URL's authority replaces Host (§3.2.2), and is then checked like any Host; the
 *   request goes on in origin-form (`req.url`, `req.originalUrl`), so routes, suffixes and links
 *   see the path alone. Only `http` and `https` URLs with a host and no user information.
 * - asterisk-form (`*`): for OPTIONS only, answered here: 204 and `Allow`, every method served.
 * - anything else (`ftp://…`, a `#fragment`, `*` with another method), and a request with more
 *   than one Host header (§3.2): 400, in the negotiated format.
 * - more than one Authorization header: 400 as well. Node keeps the first and drops the others,
 *   so a request could be checked with one credential while a proxy in front read another.
 *
 * Node's parser refuses the worst itself (`GET foo`, no Host in HTTP/1.1) with a bare 400 before
 * the application sees the request.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { METHODS } from '../response/methods';
import { printable, sendError } from '../response/respond';

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/** `scheme://authority` then the path and query (no fragment: a `#` anywhere makes it invalid). */
const ABSOLUTE = /^https?:\/\/([^/?#]*)([^#]*)$/i;

/**
 * The absolute-form of a request made origin-form before Express routes it: its router takes
 * the scheme and authority of `req.url` once, as the request arrives, and puts them back in
 * front of the path after every middleware mounted on a path, so a middleware that rewrote
 * `req.url` would have its rewrite undone (and the query cut off). Installed on the server, in
 * front of its request listeners (the application); what is not a valid absolute form is left
 * for `readRequestTarget` to refuse in the negotiated format.
 */
export function takeOriginForm(server: Server): void {
  const listeners = server.listeners('request') as ((...args: unknown[]) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    toOriginForm(req);
    for (const listener of listeners) listener.call(server, req, res);
  });
}

/** Rewrites a valid absolute-form target in place; anything else is left as it came. */
function toOriginForm(req: IncomingMessage): void {
  const url = req.url ?? '';
  if (url.charCodeAt(0) === 0x2f /* / */) return;
  const absolute = ABSOLUTE.exec(url);
  const authority = absolute?.[1];
  if (!absolute || !authority || authority.includes('@')) return;
  const rest = absolute[2];
  req.headers.host = authority;
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * Express middleware, before anything that reads the path or Host. `negotiate` is format
 * negotiation (`negotiateFormat`), run only to answer a refusal in the format the client asked for.
 */
export function readRequestTarget(negotiate: Middleware): Middleware {
  const refuse = (req: Request, res: Response, message: string) =>
    negotiate(req, res, () => sendError(res, 400, { message }));
  return (req, res, next) => {
    const repeated = repeatedHeader(req.rawHeaders);
    if (repeated === HOST) {
      return refuse(req, res, 'Request has more than one Host header; send one.');
    }
    if (repeated === AUTHORIZATION) {
      return refuse(
        req,
        res,
        'Request has more than one Authorization header; send one credential per request.',
      );
    }
    const url = req.url;
    // The usual case: a path, no fragment.
    if (url.charCodeAt(0) === 0x2f /* / */ && !url.includes('#')) return next();
    if (url === '*') {
      if (req.method !== 'OPTIONS')
        return refuse(req, res, 'Request target "*" is for OPTIONS only.');
      // The server as a whole (RFC 9110 §9.3.7): the methods it serves somewhere.
      res.setHeader('Allow', METHODS.join(', '));
      res.status(204).end();
      return;
    }
    // A valid absolute form was made origin-form on the server (takeOriginForm): what is left
    // here is not one.
    return refuse(
      req,
      res,
      `Request target "${printable(url)}" is neither a path nor an http(s) URL.`,
    );
  };
}

const HOST = 'host';
const AUTHORIZATION = 'authorization';

/**
 * Host or Authorization when the request had more than one line of it (Node keeps only the
 * first of each in `req.headers`), Host first; undefined otherwise.
 */
function repeatedHeader(raw: string[]): typeof HOST | typeof AUTHORIZATION | undefined {
  let hosts = 0;
  let authorizations = 0;
  for (let at = 0; at < raw.length; at += 2) {
    const name = raw[at];
    if (name.length === 4 && name.toLowerCase() === HOST) hosts++;
    else if (name.length === 13 && name.toLowerCase() === AUTHORIZATION) authorizations++;
  }
  if (hosts > 1) return HOST;
  return authorizations > 1 ? AUTHORIZATION : undefined;
}
