import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { Observable, map } from 'rxjs';
import { RenderedResponse, ResponseHeaders } from '../../core/render';
import { ResourceDefinition } from '../../core/resource';
import { resourceOf } from '../options/resource.decorator';
import { renderResult } from './renderers';
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

/** Sets the status and headers of a result's response; the body for Nest to send. */
function applyResult(
  req: Request,
  res: Response,
  resource: ResourceDefinition | undefined,
  result: unknown,
): string | undefined {
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

function setHeaders(res: Response, headers: ResponseHeaders): void {
  for (const name in headers) res.setHeader(name, headers[name]);
}
