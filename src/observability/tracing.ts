/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): every request belongs to a trace,
 * the caller's (`traceparent`) or a new one, and answers with the `traceparent` of its own span
 * (and the caller's `tracestate`). The access log line carries the trace id.
 *
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, the spans are real OpenTelemetry spans exported over
 * OTLP/HTTP (./otel.ts). That module, and with it the OpenTelemetry SDK, is loaded only then.
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { SqlObserver } from '../rest/sql/port';

/** A caller's span, from a valid `traceparent` header. */
export interface RemoteParent {
  traceId: string;
  spanId: string;
  /** Two hex digits; `01` is "sampled". */
  flags: string;
  /** The caller's `tracestate`, passed on as it came. */
  state?: string;
}

/** The span of one request: its ids, and how it ends. */
export interface RequestSpan {
  traceId: string;
  spanId: string;
  flags: string;
  /** When the response has closed: the route template, the status, whether it completed. */
  end?(route: string, status: number): void;
}

/** What tracing offers the request path: spans for requests and statements. */
export interface Tracer {
  /** Starts the span of a request (a child of `parent` when there is one). */
  startRequest(req: Request, parent: RemoteParent | undefined): RequestSpan;
  /** Runs `next` with `span` as the current span, so statements become its children. */
  within(span: RequestSpan, next: () => void): void;
  readonly observeSql: SqlObserver;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

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
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { OtelTracer } = require('./otel') as typeof import('./otel');
  return new OtelTracer(endpoint, serviceName);
}
