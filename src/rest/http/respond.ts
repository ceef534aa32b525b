import type { Response } from 'express';
import { CONTENT_TYPES, ErrorBody, Format, encodeError } from '../core/render';

/** The negotiated format of a request, set by `negotiateFormat`. */
export function formatOf(res: Response): Format {
  return (res.locals.format as Format | undefined) ?? 'json';
}

/**
 * Ends a request with an error (CONTRACT §5): `{message, errors?}` in the negotiated format.
 * Every error response leaves through here, from middleware and from the exception filter.
 */
export function sendError(
  res: Response,
  status: number,
  body: ErrorBody,
  headers: Record<string, string> = {},
): void {
  const format = formatOf(res);
  res.status(status);
  // An error is never kept by a cache: the next try must reach the service.
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', CONTENT_TYPES[format]);
  res.send(encodeError(format, body));
}
