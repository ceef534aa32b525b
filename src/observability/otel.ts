/**
 * OpenTelemetry spans, exported over OTLP/HTTP (JSON) in batches: a server span per request
 * (named `METHOD /route/template` once the route is known) and a client span per SQL statement,
 * its child. Loaded only by `openTelemetryTracer` (./tracing.ts) when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set: nothing else may import this file.
 *
 * The current request span lives in an AsyncLocalStorage of this module rather than in a global
 * OpenTelemetry context manager: nothing else here reads the global context.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  Context,
  createTraceState,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
  Tracer as ApiTracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Request } from 'express';
import type { SqlObserver } from '../rest/db/sql-database';
import type { RemoteParent, RequestSpan, Tracer } from './tracer';

interface OtelRequestSpan extends RequestSpan {
  span: Span;
  method: string;
}

/** The SQL keyword that names a statement's span (`SELECT`, `INSERT`, …). */
function operationOf(sql: string): string {
  const match = /^\s*(?:SET STATEMENT .*? FOR\s+)?(\w+)/i.exec(sql);
  return match ? match[1].toUpperCase() : 'SQL';
}

export class OtelTracer implements Tracer {
  private readonly provider: TracerProvider;
  private readonly tracer: ApiTracer;
  private readonly current = new AsyncLocalStorage<Context>();

  constructor(endpoint: string, serviceName: string) {
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': serviceName }),
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` }),
          scheduledDelayMillis: 1000,
        }),
      ],
    });
    this.tracer = this.provider.getTracer('record-collections');
  }

  startRequest(req: Request, parent: RemoteParent | undefined): RequestSpan {
    const context = parent
      ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId: parent.traceId,
          spanId: parent.spanId,
          traceFlags: parseInt(parent.flags, 16) & 1,
          isRemote: true,
          traceState: parent.state ? createTraceState(parent.state) : undefined,
        })
      : ROOT_CONTEXT;
    const span = this.tracer.startSpan(
      req.method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': req.method, 'url.path': req.path },
      },
      context,
    );
    const ids = span.spanContext();
    const result: OtelRequestSpan = {
      traceId: ids.traceId,
      spanId: ids.spanId,
      flags: ids.traceFlags & 1 ? '01' : '00',
      span,
      method: req.method,
      end(route, status, actor) {
        span.updateName(`${result.method} ${route}`);
        span.setAttribute('http.route', route);
        if (actor) span.setAttribute('enduser.id', actor);
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
    return result;
  }

  within(span: RequestSpan, next: () => void): void {
    this.current.run(trace.setSpan(ROOT_CONTEXT, (span as OtelRequestSpan).span), next);
  }

  readonly observeSql: SqlObserver = (sql, kind, pool) => {
    const context = this.current.getStore();
    // A statement outside any request (start-up, demo data) starts no trace of its own.
    if (!context) return () => undefined;
    const span = this.tracer.startSpan(
      operationOf(sql),
      {
        kind: SpanKind.CLIENT,
        attributes: { 'db.query.text': sql, 'db.pool.name': pool, 'db.statement.kind': kind },
      },
      context,
    );
    return (error) => {
      if (error) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
      }
      span.end();
    };
  };

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}
