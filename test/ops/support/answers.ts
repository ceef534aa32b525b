/**
 * One HTTP call as the ops suites read it, for the suites that start servers of their own
 * (Galera, replicas): the status, the headers, the body parsed as JSON (`{}` when it is not
 * JSON, with the text kept), the Retry-After header and how long the whole answer took. A call
 * that gets no answer within a minute fails its test rather than hang it.
 */
import type { ServerProcess } from './process';

export interface Answer<Body = Record<string, unknown>> {
  status: number;
  headers: Headers;
  /** The body parsed as JSON; `{}` when it is not JSON. */
  body: Body;
  text: string;
  retryAfter: string | null;
  /** Milliseconds from sending to the whole answer. */
  took: number;
}

export async function call<Body = Record<string, unknown>>(
  url: string,
  init: RequestInit = {},
  timeoutMs = 60_000,
): Promise<Answer<Body>> {
  const started = Date.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let body = {} as Body;
  try {
    body = JSON.parse(text) as Body;
  } catch {
    // not JSON: the test looks at the text
  }
  return {
    status: res.status,
    headers: res.headers,
    body,
    text,
    retryAfter: res.headers.get('retry-after'),
    took: Date.now() - started,
  };
}

/** The request of a JSON body: `call(url, json('POST', record, { 'Idempotency-Key': key }))`. */
export const json = (
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): RequestInit => ({
  method,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** The header that carries `token` as a bearer. */
export const auth = (token: string): Record<string, string> => ({
  Authorization: `Bearer ${token}`,
});

/** The request that carries `token` as a bearer (the metrics token, for /health/ready's details). */
export const bearer = (token: string): RequestInit => ({ headers: auth(token) });

/** A node of a Galera cluster as /health/ready shows it to the metrics token's bearer. */
export interface NodeView {
  name: string;
  url: string;
  state: string;
  writer: boolean;
  failovers: number;
  /** Keyed writes whose COMMIT it left unanswered, run again on the next writer. */
  keyed_reruns: number;
}

/**
 * The cluster as `service`'s /health/ready shows it to the bearer of `token`: the status of the
 * answer, the node written through and every node (absent where the service names no cluster).
 */
export async function clusterView(service: ServerProcess, token: string) {
  const res = await call(service.url('/health/ready'), bearer(token));
  const database = (res.body.info ?? res.body.error) as {
    database?: { cluster?: { writer: string | null; nodes: NodeView[] } };
  };
  return { status: res.status, ...database?.database?.cluster };
}
