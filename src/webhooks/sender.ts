/**
 * One delivery attempt: `POST` of a body to a URL, over a keep-alive connection of the
 * subscription's own (one at a time: deliveries of a subscription never overlap), connected to
 * the address that was checked. Redirects are not followed (a 3xx is an answer like any other
 * that is not 2xx). The answer counts once its status line has arrived; its body is read and
 * dropped.
 */
import http from 'node:http';
import https from 'node:https';
import { Target, hostOf, pinnedLookup } from './targets';

export interface Outcome {
  /** The answer's status, when one came. */
  status?: number;
  /** Why there was no answer (timed out, refused, reset, ...). */
  error?: string;
  ms: number;
}

/** How much of an answer's body is read before its connection is dropped rather than kept. */
const MAX_DRAINED = 64 * 1024;

/** The connections of one subscription: one keep-alive agent per address it connected to. */
export class Connections {
  private readonly agents = new Map<string, http.Agent>();

  agent(url: URL, target: Target | undefined): http.Agent {
    const key = `${url.protocol}//${url.host}|${target?.address ?? ''}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const options = { keepAlive: true, maxSockets: 1, timeout: 30_000 };
      agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      // A subscription's URL and addresses change rarely: the newest agents only.
      if (this.agents.size >= 4) this.close();
      this.agents.set(key, agent);
    }
    return agent;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

/** Sends `body` as a `POST` to `url`; never throws. */
export async function post(
  url: URL,
  target: Target | undefined,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
  connections: Connections,
): Promise<Outcome> {
  const started = performance.now();
  const once = await attempt(url, target, headers, body, timeoutMs, connections);
  // A kept connection the other side had just closed: sent again at once on a new one (nothing
  // of the request can have been read, Node's documented pattern).
  const outcome =
    once.reused && once.code === 'ECONNRESET' && once.status === undefined
      ? await attempt(url, target, headers, body, timeoutMs, connections)
      : once;
  return {
    ...(outcome.status !== undefined ? { status: outcome.status } : { error: outcome.error }),
    ms: Math.round(performance.now() - started),
  };
}

interface Raw {
  status?: number;
  error?: string;
  code?: string;
  reused?: boolean;
}

function attempt(
  url: URL,
  target: Target | undefined,
  headers: Record<string, string>,
  payload: Buffer,
  timeoutMs: number,
  connections: Connections,
): Promise<Raw> {
  return new Promise((resolve) => {
    const request = url.protocol === 'https:' ? https.request : http.request;
    let settled = false;
    const done = (raw: Raw) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(raw);
    };
    const req = request({
      method: 'POST',
      hostname: hostOf(url),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, 'content-length': String(payload.length) },
      agent: connections.agent(url, target),
      ...(target ? { lookup: pinnedLookup(target) as never } : {}),
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${timeoutMs} ms (WEBHOOK_TIMEOUT)`));
    }, timeoutMs);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      done({ status });
      let drained = 0;
      const cut = setTimeout(() => res.destroy(), timeoutMs);
      res.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > MAX_DRAINED) res.destroy();
      });
      res.on('close', () => clearTimeout(cut));
      res.on('error', () => undefined);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      done({ error: describe(error), code: error.code, reused: req.reusedSocket });
    });
    req.end(payload);
  });
}

/** An error in a few words, for the deliveries' `error`. */
function describe(error: NodeJS.ErrnoException): string {
  const text =
    error.code && !error.message.includes(error.code)
      ? `${error.code}: ${error.message}`
      : error.message;
  return text.slice(0, 255);
}
