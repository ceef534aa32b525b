/** The cluster suites' HTTP calls: an answer's status, headers and JSON body (or `{}`). */

export interface Answer<B = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: B;
}

export async function call<B = Record<string, unknown>>(
  url: string,
  init: RequestInit = {},
): Promise<Answer<B>> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  let body = {} as B;
  try {
    body = JSON.parse(text) as B;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body };
}

/** A request with a JSON body. */
export const json = (method: string, body: unknown, headers: Record<string, string> = {}) => ({
  method,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
