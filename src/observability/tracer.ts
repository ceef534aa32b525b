/** The shapes of tracing: a caller's span, a request's span, and a tracer. */
import type { Request } from 'express';
import type { SqlObserver } from '../rest/db/sql-database';

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
  /**
   * When the response has closed: the route template, the status, and who made the request
   * (`enduser.id`: a token's `sub`, `api-token`) when known.
   */
  end?(route: string, status: number, actor?: string | null): void;
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
