import { Readable } from 'node:stream';
import { csvDisposition } from '../../core/output/csv';
import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  StreamableFile,
  createParamDecorator,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { Observable, map } from 'rxjs';
import { RecordStream, RenderedResponse, ResponseHeaders } from '../../core/output/render';
import { ResourceDefinition } from '../../core/resource';
import { resourceOf } from '../options/resource.decorator';
import { RENDERERS, renderResult } from './renderers';
import { ExpressRenderRequest, formatOf } from './respond';

/**
 * Global interceptor, and all it does is render: each handler's result becomes a body in the
 * negotiated format with its headers (`renderResult`: the envelope of a page, Allow, Location,
 * ETag, Content-Type). A RenderedResponse (an Idempotency-Key answer) is sent as it is.
 */
@Injectable()
export class RenderInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const resource = resourceOf(this.reflector, context.getClass());
    return next.handle().pipe(map((result) => applyResult(req, res, resource, result)));
  }
}

/**
 * A handler parameter: whether the negotiated format writes a whole filtered set as it reads it
 * (CSV), so that the handler may answer a RecordStream instead of the records themselves.
 */
export const Streamed = createParamDecorator(
  (_: unknown, context: ExecutionContext): boolean =>
    RENDERERS[formatOf(context.switchToHttp().getResponse<Response>())].stream !== undefined,
);

/** Sets the status and headers of a result's response; the body for Nest to send. */
function applyResult(
  req: Request,
  res: Response,
  resource: ResourceDefinition | undefined,
  result: unknown,
): string | StreamableFile | undefined {
  if (result instanceof RecordStream) return streamResult(req, res, resource, result);
  if (result instanceof RenderedResponse) {
    res.status(result.status);
    setHeaders(res, result.headers);
    return result.body.length === 0 ? undefined : result.body.toString('utf8');
  }
  const request = new ExpressRenderRequest(req, res.statusCode);
  const rendered = renderResult(result, formatOf(res), resource, request);
  setHeaders(res, rendered.headers);
  return rendered.body;
}

/**
 * A RecordStream, piped to the client as the renderer writes it. A failure after the first bytes
 * cannot become an error response: the connection is cut (Nest's StreamableFile), so the client
 * sees a truncated answer rather than one that looks complete.
 */
function streamResult(
  req: Request,
  res: Response,
  resource: ResourceDefinition | undefined,
  result: RecordStream,
): StreamableFile {
  const renderer = RENDERERS[formatOf(res)];
  const request = new ExpressRenderRequest(req, res.statusCode);
  setHeaders(res, renderer.headers ?? {});
  res.setHeader('Content-Type', renderer.contentType);
  if (formatOf(res) === 'csv') res.setHeader('Content-Disposition', csvDisposition(resource));
  const body = renderer.stream!(result, { resource, request, headers: {} });
  return new StreamableFile(Readable.from(body), { type: renderer.contentType });
}

function setHeaders(res: Response, headers: ResponseHeaders): void {
  for (const name in headers) res.setHeader(name, headers[name]);
}
