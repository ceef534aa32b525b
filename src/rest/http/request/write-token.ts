import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { isRead } from '../response/methods';
import { sendError } from '../response/respond';

/**
 * Express middleware: when a token is configured, every request that is not a read must carry
 * `Authorization: Bearer <token>`. Runs before body parsing, so an unauthenticated client's body
 * is never read. Tokens are compared in constant time (as SHA-256 digests of equal length).
 */
export function requireWriteToken(token: string) {
  const expected = createHash('sha256').update(token).digest();
  return (req: Request, res: Response, next: NextFunction) => {
    if (isRead(req.method)) return next();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const given = createHash('sha256')
      .update(match?.[1] ?? '')
      .digest();
    if (match && timingSafeEqual(given, expected)) return next();
    sendError(
      res,
      401,
      { message: 'Writes need a valid bearer token (Authorization: Bearer <token>).' },
      { 'WWW-Authenticate': `Bearer realm="records"${match ? ', error="invalid_token"' : ''}` },
    );
  };
}
