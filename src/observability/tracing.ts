/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): every request belongs to a trace,
 * the caller's (`traceparent`) or a new one, and answers with the `traceparent` of its own span
 * (and the caller's `tracestate`). The access log line carries the trace id.
 *
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, the spans are real OpenTelemetry spans exported over
 * OTLP/HTTP (./otel.ts). That module, and with it the OpenTelemetry SDK, is loaded only then.
 */
import { randomFillSync } from 'node:crypto';
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

/**
 * Random bytes for ids, drawn from the system's generator 4 KiB at a time: one call per 170
 * requests rather than one per id.
 */
const random = Buffer.alloc(4096);
let used = random.length;

function randomHex(bytes: number, zero: string): string {
  for (;;) {
    if (used + bytes > random.length) {
      randomFillSync(random);
      used = 0;
    }
    const hex = random.toString('hex', used, used + bytes);
    used += bytes;
    // All zeros is the spec's "invalid": draw again (once in 2^64 at worst).
    if (hex !== zero) return hex;
  }
}

/** A random trace id: 32 hex digits, not all zero. */
export function newTraceId(): string {
  return randomHex(16, ZERO_TRACE);
}

/** A random span id: 16 hex digits, not all zero. */
export function newSpanId(): string {
  return randomHex(8, ZERO_SPAN);
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
