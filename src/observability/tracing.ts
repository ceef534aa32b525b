/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): every request belongs to a trace,
 * the caller's (`traceparent`) or a new one, and answers with the `traceparent` of its own span
 * (and the caller's `tracestate`). The access log line carries the trace id.
 *
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, the spans are real OpenTelemetry spans exported over
 * OTLP/HTTP (./otel.ts). That module, and with it the OpenTelemetry SDK, is loaded only then.
 */
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { RemoteParent, RequestSpan, Tracer } from './tracer';

export type { RemoteParent, RequestSpan, Tracer } from './tracer';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-|$)/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** A tracestate header passed on: at most 512 characters, printable (the spec's limit). */
const TRACESTATE = /^[\x20-\x7e]{0,512}$/;

/**
 * The caller's span from `traceparent` (and `tracestate`), or undefined for a header that is
 * missing or invalid (which the spec says to ignore: the request starts a new trace).
 */
export function parseTraceparent(
  header: string | string[] | undefined,
  state: string | string[] | undefined,
): RemoteParent | undefined {
  if (typeof header !== 'string') return undefined;
  const match = TRACEPARENT.exec(header);
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version ff is invalid; version 00 has exactly these four fields.
  if (version === 'ff' || (version === '00' && rest !== '')) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const parent: RemoteParent = { traceId, spanId, flags };
  if (typeof state === 'string' && state !== '' && TRACESTATE.test(state)) parent.state = state;
  return parent;
}

/** A random trace id: 32 hex digits. */
export function newTraceId(): string {
  const uuid = randomUUID();
  return (
    uuid.slice(0, 8) + uuid.slice(9, 13) + uuid.slice(14, 18) + uuid.slice(19, 23) + uuid.slice(24)
  );
}

/** A random span id: 16 hex digits. */
export function newSpanId(): string {
  const uuid = randomUUID();
  return uuid.slice(0, 8) + uuid.slice(24, 32);
}

/**
 * The request's span without OpenTelemetry: the caller's trace id (or a new one) and a new span
 * id, recorded nowhere but the access log; not sampled unless the caller's was.
 */
export function localSpan(parent: RemoteParent | undefined): RequestSpan {
  return {
    traceId: parent?.traceId ?? newTraceId(),
    spanId: newSpanId(),
    flags: parent?.flags ?? '00',
  };
}

/** Sets `traceparent` (and `tracestate`) of the response to the request's span. */
export function answerTrace(res: Response, span: RequestSpan, parent?: RemoteParent): void {
  res.setHeader('traceparent', `00-${span.traceId}-${span.spanId}-${span.flags}`);
  if (parent?.state) res.setHeader('tracestate', parent.state);
}

/**
 * The OpenTelemetry tracer exporting to `endpoint` (OTLP/HTTP). The SDK is required here, on
 * first use, so a service without OTEL_EXPORTER_OTLP_ENDPOINT never loads it.
 */
export function openTelemetryTracer(endpoint: string, serviceName: string): Tracer {
  const { OtelTracer } = require('./otel') as {
    OtelTracer: new (endpoint: string, serviceName: string) => Tracer;
  };
  return new OtelTracer(endpoint, serviceName);
}
