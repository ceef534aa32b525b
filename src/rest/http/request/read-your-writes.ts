import type { NextFunction, Request, Response } from 'express';
import { afterOwnWrite, onPrimary } from '../../db/replicas';

/** The cookie every write response sets: the time of the write, in milliseconds since 1970. */
export const LAST_WRITE_COOKIE = 'records_last_write';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
const PREFIX = `${LAST_WRITE_COOKIE}=`;

/**
 * Read-your-writes with read replicas, as Rails does it: the response to every
 * write (POST, PUT, PATCH, DELETE) sets a cookie with the time it was answered, and the reads of
 * a client whose cookie is younger than `windowSeconds` go to the primary, so they see its write
 * however far the replicas lag. Everything a write request reads (the record it answers with)
 * is read from the primary too. The cookie is the only state: any instance honours it. It is not
 * signed, since it grants nothing: a forged one only sends its client's reads to the primary, and
 * a time further ahead than the window is ignored. On a Galera cluster the same cookie makes the
 * reads causal instead (any healthy node, after it applied every write certified before the read:
 * docs/scaling.md). A window of 0 sets no cookie (a write request still reads from the primary).
 *
 * Installed after the body parsers: a request continues from here in this middleware's context
 * (AsyncLocalStorage), which a stream's events would not carry.
 */
export function readYourWrites(windowSeconds: number) {
  const windowMs = windowSeconds * 1000;
  const attributes = `; Path=/; Max-Age=${Math.ceil(windowSeconds)}; HttpOnly; SameSite=Lax`;
  return (req: Request, res: Response, next: NextFunction) => {
    if (READS.has(req.method)) {
      if (windowMs === 0) return next();
      const written = lastWrite(req.headers.cookie);
      const age = Date.now() - written;
      // A clock of another instance may be a little ahead: a time "in the future" within the
      // window still counts.
      if (age < windowMs && age > -windowMs) afterOwnWrite(next);
      else next();
      return;
    }
    if (windowMs === 0) return onPrimary(next);
    // The time goes in when the response leaves: the write has committed by then.
    const writeHead = res.writeHead;
    res.writeHead = function (this: Response, ...args: unknown[]) {
      if (!this.headersSent) this.append('Set-Cookie', `${PREFIX}${Date.now()}${attributes}`);
      return (writeHead as (...a: unknown[]) => Response).apply(this, args);
    } as Response['writeHead'];
    onPrimary(next);
  };
}

/** The time in the request's cookie, or 0. */
function lastWrite(header: string | undefined): number {
  if (header === undefined) return 0;
  const at = header.indexOf(PREFIX);
  if (at === -1 || (at > 0 && header[at - 1] !== ' ' && header[at - 1] !== ';')) return 0;
  const value = parseInt(header.slice(at + PREFIX.length, at + PREFIX.length + 16), 10);
  return Number.isFinite(value) ? value : 0;
}
