/**
 * The origin (scheme, host, port, path prefix) of the absolute links the service writes:
 * `Location`, `next` and `previous`. A Host header is the client's to choose, so it is never
 * copied into a link unchecked: behind a cache or a proxy that forwards Host, that would be link
 * and cache poisoning.
 *
 * With a public URL configured, every link starts with it and Host is not looked at. Without one,
 * the request's host (X-Forwarded-Host instead, only when the proxy is trusted) must be one the
 * operator allows: the machine's own names and addresses (loopback included), and the names
 * listed (`api.example.com`, `api.example.com:8443`, `.example.com` for it and its subdomains, or
 * `*` for any). Another host is refused with 400 before the request runs. The host of an
 * absolute-form request line has replaced Host by then (`readRequestTarget`).
 */
import { hostname, networkInterfaces } from 'node:os';
import type { NextFunction, Request, Response } from 'express';
import { printable, sendError, setLinkOrigin } from '../response/respond';

export interface PublicOriginOptions {
  /** The base of every link, without a trailing slash (`https://api.example.com/records`). */
  publicUrl?: string;
  /** Host names allowed besides the machine's own (see above). */
  allowedHosts: string[];
  /** Whether X-Forwarded-Host and X-Forwarded-Proto are believed (Express `trust proxy`). */
  trustProxy: boolean;
}

/** The machine's own names: loopback, its host name, the addresses of its interfaces. */
function ownNames(): string[] {
  const names = ['localhost', '127.0.0.1', '::1', hostname().toLowerCase()];
  for (const addresses of Object.values(networkInterfaces())) {
    for (const { address } of addresses ?? []) names.push(address.toLowerCase());
  }
  return names;
}

/** "host:port" or "[v6]:port" split into the name (brackets off) and the port, if any. */
function split(host: string): { name: string; port?: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(host);
  if (bracketed) return { name: bracketed[1], port: bracketed[2] };
  const colon = host.lastIndexOf(':');
  if (colon === -1 || host.indexOf(':') !== colon) return { name: host };
  return { name: host.slice(0, colon), port: host.slice(colon + 1) };
}

/** Whether `host` (lower case) is a host name or address, with a port or not (RFC 9110 §7.2). */
function wellFormed(host: string): boolean {
  const { name, port } = split(host);
  return /^[\w.:-]+$/.test(name) && (port === undefined || /^\d{1,5}$/.test(port));
}

/**
 * Whether `host` (a Host header, lower case) is allowed, built once from the options. With `*`
 * any host is, as long as it is a host: never text that would change a link's path or query.
 */
function hostRule(allowed: string[]): (host: string) => boolean {
  if (allowed.includes('*')) return wellFormed;
  const names = new Set(ownNames());
  const withPort = new Set<string>();
  const suffixes: string[] = [];
  for (const entry of allowed) {
    const { name, port } = split(entry);
    if (name.startsWith('.')) suffixes.push(name);
    else if (port) withPort.add(`${name}:${port}`);
    else names.add(name);
  }
  const seen = new Map<string, boolean>();
  return (host) => {
    let ok = seen.get(host);
    if (ok === undefined) {
      const { name, port } = split(host);
      ok =
        wellFormed(host) &&
        (names.has(name) ||
          withPort.has(`${name}:${port}`) ||
          suffixes.some((s) => name.endsWith(s) || name === s.slice(1)));
      // Remembered for the hosts that come back; a flood of new names is not kept.
      if (seen.size < 1000) seen.set(host, ok);
    }
    return ok;
  };
}

/**
 * Express middleware: gives each request the origin of its links, or answers 400 when its host
 * is not allowed (in the negotiated format: install it after format negotiation).
 */
export function checkHost(options: PublicOriginOptions) {
  const { publicUrl } = options;
  if (publicUrl) {
    return (req: Request, _res: Response, next: NextFunction) => {
      setLinkOrigin(req, publicUrl);
      next();
    };
  }
  const allowed = hostRule(options.allowedHosts);
  const forwarded = options.trustProxy;
  // Express's `req.protocol` asks the system for the peer's address on every new connection, to
  // see whether it is a trusted proxy: without one, the connection alone says.
  const protocolOf = forwarded
    ? (req: Request) => req.protocol
    : (req: Request) => ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
  return (req: Request, res: Response, next: NextFunction) => {
    const given = forwarded ? forwardedHost(req) : req.headers.host;
    const host = (given ?? '').trim().toLowerCase();
    if (!host || !allowed(host)) {
      const shown = printable(given ?? '');
      // An empty Host (HTTP/1.0) is not malformed: PUBLIC_URL is its fix.
      const message =
        !host || wellFormed(host)
          ? refusal(shown, protocolOf(req))
          : `Host "${shown}" is not a host name or address (with an optional port).`;
      return sendError(res, 400, { message });
    }
    setLinkOrigin(req, `${protocolOf(req)}://${host}`);
    next();
  };
}

/** X-Forwarded-Host's first value where a trusted proxy sent one, else Host. */
function forwardedHost(req: Request): string | undefined {
  const header = req.headers['x-forwarded-host'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value) return value.split(',')[0];
  return req.headers.host;
}

/**
 * The 400 of a host the service does not know, naming the two settings that fix it, with the
 * host as the example (a server reached by a name of its network, `myserver.lan:3000`).
 */
export function refusal(host: string, protocol: string): string {
  const name = /^(\[[^\]]*\]|[^:]*)/.exec(host)![1];
  const examples = name
    ? ` (ALLOWED_HOSTS=${name}), or set PUBLIC_URL to the address clients use (PUBLIC_URL=${protocol}://${host})`
    : ', or set PUBLIC_URL to the address clients use';
  return (
    `Host "${host}" is not a name of this service. If clients reach it by this name, add the ` +
    `name to ALLOWED_HOSTS${examples}, and restart the service.`
  );
}
