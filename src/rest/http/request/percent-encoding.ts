/**
 * A request's path and query are percent-encoded UTF-8 (RFC 3986 §2.5). What is not:
 *
 * - in the path (`/api/demo/marbles/%ff`): Express cannot decode the `:id` it captures and would
 *   answer its own bare 400; the segment is taken as written instead (its `%` escaped), so it
 *   reaches the route as the text `%ff` and is what any id that is no positive integer is, the
 *   record's 404 ("Marble %ff not found.") in the negotiated format;
 * - in the query (`?name=%ff`): the query parser would decode it to U+FFFD and the filter would
 *   quietly match nothing; it is a 400 naming the parameter and the byte, in the words of a body
 *   that is not UTF-8 ("…: byte 0xFF at offset 0…"). A `%` that starts no escape (`100%`) is
 *   still taken as the character, as the query parser does.
 */
import type { NextFunction, Request, Response } from 'express';
import { isUtf8 } from 'node:buffer';
import { invalidUtf8At } from '../../core/input/utf8';
import { printable, sendError } from '../response/respond';

/** Express middleware, before routing and after format negotiation (for the 400's format). */
export function checkPercentEncoding(req: Request, res: Response, next: NextFunction): void {
  const url = req.url;
  if (!url.includes('%')) return next();
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : url.slice(queryAt + 1);
  const problem = query.includes('%') ? queryProblem(query) : undefined;
  if (problem) return sendError(res, 400, { message: problem });
  if (path.includes('%') && !decodes(path)) {
    const taken = path
      .split('/')
      .map((segment) => (decodes(segment) ? segment : segment.replace(/%/g, '%25')))
      .join('/');
    req.url = taken + (queryAt === -1 ? '' : url.slice(queryAt));
  }
  next();
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** The first parameter whose name or value is not UTF-8 once decoded, said in a sentence. */
function queryProblem(query: string): string | undefined {
  for (const pair of query.split('&')) {
    if (!pair.includes('%')) continue;
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const name = unescapeBuffer(rawName.replace(/\+/g, ' '));
    const value =
      equals === -1 ? Buffer.alloc(0) : unescapeBuffer(pair.slice(equals + 1).replace(/\+/g, ' '));
    if (!isUtf8(name)) {
      return `Query parameter ${printable(rawName)} is not valid percent-encoded UTF-8: ${byteAt(name)} of its name.`;
    }
    if (!isUtf8(value)) {
      return `Query parameter ${printable(name.toString())} is not valid percent-encoded UTF-8: ${byteAt(value)} of its value.`;
    }
  }
  return undefined;
}

/** The bytes a query component stands for: `+` a space, `%XX` a byte, anything else as it is. */
function unescapeBuffer(text: string): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (const escape of text.matchAll(/%[0-9A-Fa-f]{2}/g)) {
    parts.push(Buffer.from(text.slice(from, escape.index), 'utf8'));
    parts.push(Buffer.from([parseInt(escape[0].slice(1), 16)]));
    from = escape.index + 3;
  }
  parts.push(Buffer.from(text.slice(from), 'utf8'));
  return Buffer.concat(parts);
}

function byteAt(bytes: Buffer): string {
  const at = invalidUtf8At(bytes);
  return `byte 0x${bytes[at].toString(16).toUpperCase().padStart(2, '0')} at offset ${at}`;
}
