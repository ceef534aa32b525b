import { CallHandler, ExecutionContext, Injectable, NestInterceptor, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { Observable, map } from 'rxjs';
import { CONTENT_TYPES, renderBody } from '../core/render';
import { ResourceDefinition } from '../core/resource';
import { allowedMethods } from './methods';
import { RESOURCE } from './resource.decorator';
import { formatOf } from './respond';

/** Global interceptor: wraps pages in the envelope and encodes every result as JSON or XML. */
@Injectable()
export class RenderInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  /** The declaration of each controller class, looked up once. */
  private readonly resources = new WeakMap<Type, ResourceDefinition | null>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const resource = this.resourceOf(context.getClass()) ?? undefined;
    return next.handle().pipe(
      map((result: unknown) => {
        if (req.method === 'OPTIONS') res.setHeader('Allow', allowedMethods(req).join(', '));
        if (result === undefined) return undefined;
        if (res.statusCode === 201 && isRecord(result)) {
          res.setHeader('Location', `${origin(req)}${req.path.replace(/\/$/, '')}/${result.id}`);
        }
        const format = formatOf(res);
        res.setHeader('Content-Type', CONTENT_TYPES[format]);
        return renderBody(result, format, resource, () => requestUrl(req));
      }),
    );
  }

  private resourceOf(controller: Type): ResourceDefinition | null {
    let resource = this.resources.get(controller);
    if (resource === undefined) {
      resource = (this.reflector.get(RESOURCE, controller) as ResourceDefinition) ?? null;
      this.resources.set(controller, resource);
    }
    return resource;
  }
}

function isRecord(result: unknown): result is { id: number } {
  return typeof result === 'object' && result !== null && 'id' in result && !Array.isArray(result);
}

function origin(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
}

export function requestUrl(req: Request) {
  const original = req.originalUrl;
  const queryAt = original.indexOf('?');
  return {
    base: `${origin(req)}${queryAt === -1 ? original : original.slice(0, queryAt)}`,
    query: queryAt === -1 ? '' : original.slice(queryAt + 1),
  };
}
