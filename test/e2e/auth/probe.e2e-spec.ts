/**
 * The probe: a few thousand requests across every route of the document (and the open ones,
 * and paths of no route), every method, every method-override header a framework might honour,
 * with every kind of credentials that lacks the right scope — none, a read scope, another
 * collection's write scope, expired, for another audience, in the query string, a near miss of
 * the API token — in JSON and XML. Every write must be refused (401 or 403) before anything
 * else looks at it, and afterwards not one row of any table may have changed.
 */
import type { Server } from 'node:http';
import { bearer, everything, useTokenApp } from './oidc';
import { ONE_OF_EACH } from '../support/fixtures';

const API_TOKEN = 'static-api-token-0123456789';
/** A few thousand requests on a loaded machine. */
const PROBE_TIMEOUT = 600_000;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WRITES = ['post', 'put', 'patch', 'delete'] as const;
const READS = ['get', 'head', 'options'] as const;

/** Headers and query parameters that ask some frameworks to take the request as another method. */
const OVERRIDES: { headers: Record<string, string>; query: string }[] = [
  { headers: {}, query: '' },
  { headers: { 'X-HTTP-Method-Override': 'GET' }, query: '' },
  { headers: { 'X-HTTP-Method': 'GET' }, query: '' },
  { headers: { 'X-Method-Override': 'GET' }, query: '' },
  { headers: {}, query: '_method=GET' },
];
/** On a read: overrides to a write. */
const READ_OVERRIDES: { headers: Record<string, string>; query: string }[] = [
  { headers: { 'X-HTTP-Method-Override': 'DELETE' }, query: '' },
  { headers: { 'X-HTTP-Method': 'PATCH' }, query: '' },
  { headers: { 'X-Method-Override': 'POST' }, query: '_method=PUT' },
];

describe('the write probe: nothing is written without the right scope', () => {
  const { oidc, t } = useTokenApp({ apiToken: API_TOKEN, seed: ONE_OF_EACH });

  it(
    'should refuse every write (401/403) and change no row, across routes, methods, overrides and credentials',
    async () => {
      const doc = (await t.http().get('/api/openapi.json')).body as Json;
      const paths = [
        // A `.csv` twin is the read of the path before it: a write there is a 406 before anything.
        ...Object.keys(doc.paths)
          .filter((p) => !p.endsWith('.csv'))
          .map((p) => p.replace('{id}', '1')),
        '/',
        '/api',
        '/health/live',
        '/api/openapi.json',
        '/api/docs/',
        '/metrics',
        '/api/demo/nowhere',
        '/api/demo/marbles/1.xml',
        '/api/demo/marbles/',
      ];
      const now = Math.floor(Date.now() / 1000);
      const credentials: [string, Record<string, string>, string][] = [
        ['none', {}, ''],
        ['records:read', bearer(await oidc.provider.token('reader', ['records:read'])), ''],
        ['profile', bearer(await oidc.provider.token('nobody', ['profile'])), ''],
        ['expired records:write', bearer(await oidc.provider.forge({ exp: now - 120 })), ''],
        ['another audience', bearer(await oidc.provider.forge({ aud: 'other-api' })), ''],
        ['a near miss of the API token', bearer(`${API_TOKEN.slice(0, -1)}x`), ''],
        [
          'records:write in the query',
          {},
          `access_token=${await oidc.provider.token('admin', ['records:write'])}`,
        ],
      ];
      // Another collection's write scope: emails:write, or marbles:write on the e-mails.
      const emailsBot = bearer(await oidc.provider.token('emails-bot', ['emails:write']));
      const marblesBot = bearer(await oidc.provider.token('marbles-bot', ['marbles:write']));
      const body = (path: string) =>
        Object.values(doc.paths as Json)
          .flatMap((item) => Object.values(item as Json))
          .find(
            (op: Json) =>
              op.requestBody &&
              (op.tags[0] === 'operations'
                ? path === '/api/operations'
                : path.startsWith(
                    `/api/${op.tags[0] === 'movies' ? 'plain' : 'demo'}/${op.tags[0]}`,
                  )),
          )?.requestBody.content['application/json'].example ?? { name: 'Probe' };

      const before = await everything(t);
      // One listening server and keep-alive connections (fetch), a few requests in flight.
      const server = t.app.getHttpServer() as Server;
      // Connections stay open between requests however slow the machine: a connection the
      // server closes as idle just as a request is sent on it would reset, which says nothing.
      server.keepAliveTimeout = 120_000;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const wrong: string[] = [];
      let sent = 0;
      const pending: Promise<void>[] = [];
      /** Sends one request; `check` says what is wrong with its status, if anything. */
      const send = async (
        method: string,
        path: string,
        headers: Record<string, string>,
        query: string,
        xml: boolean,
        check: (status: number) => string | undefined,
      ) => {
        const url = query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path;
        const write = (WRITES as readonly string[]).includes(method);
        const run = fetch(`${base}${url}`, {
          method: method.toUpperCase(),
          headers: {
            ...headers,
            Accept: xml ? 'application/xml' : 'application/json',
            ...(write ? { 'Content-Type': 'application/json' } : {}),
          },
          body: write ? JSON.stringify(body(path)) : undefined,
        }).then(async (res) => {
          await res.arrayBuffer();
          sent += 1;
          const problem = check(res.status);
          if (problem)
            wrong.push(`${method.toUpperCase()} ${url} ${JSON.stringify(headers)}: ${problem}`);
        });
        pending.push(run);
        if (pending.length >= 8) await Promise.all(pending.splice(0));
      };
      // Every credential on every route and method; every override header on every route and
      // method, each with the next credential in turn (the two vary independently: a refusal
      // that held for one credential and failed under an override would show on some route).
      let turn = 0;
      for (const path of paths) {
        const otherWriter = path.startsWith('/api/demo/emails') ? marblesBot : emailsBot;
        const all = [
          ...credentials,
          ['another collection', otherWriter, ''] as [string, Record<string, string>, string],
        ];
        const next = () => all[turn++ % all.length];
        const refused = (who: string) => (status: number) =>
          status === 401 || status === 403 ? undefined : `${status} as ${who}`;
        for (const method of WRITES) {
          for (const [who, auth, authQuery] of all) {
            await send(method, path, auth, authQuery, false, refused(who));
          }
          for (const [i, { headers, query }] of OVERRIDES.slice(1).entries()) {
            const [who, auth, authQuery] = next();
            const q = [query, authQuery].filter(Boolean).join('&');
            await send(method, path, { ...auth, ...headers }, q, i % 2 === 0, refused(who));
          }
        }
        for (const { headers, query } of READ_OVERRIDES) {
          for (const method of READS) {
            const [who, auth, authQuery] = next();
            const q = [query, authQuery].filter(Boolean).join('&');
            await send(method, path, { ...auth, ...headers }, q, false, (status) =>
              status < 500 ? undefined : `${status} as ${who}`,
            );
          }
        }
      }
      await Promise.all(pending);
      await new Promise((resolve) => server.close(resolve));
      expect(wrong).toEqual([]);
      // Every request was answered: 8 credentials and 4 overrides per write, 9 reads, per path.
      const perPath =
        WRITES.length * (credentials.length + 1 + OVERRIDES.length - 1) +
        READ_OVERRIDES.length * READS.length;
      expect(sent).toBe(paths.length * perPath);
      expect(sent).toBeGreaterThan(1500);
      expect(await everything(t)).toEqual(before);
    },
    PROBE_TIMEOUT,
  );
});
