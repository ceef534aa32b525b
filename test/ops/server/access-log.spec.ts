/**
 * The writer in the access log: the built server with an OpenID Connect issuer (a real one on
 * loopback) writes the token's `sub` as `req.actor` in the line of each request made with it,
 * and nothing for a request without one.
 */
import { AUDIENCE, OidcProvider, scopesOf } from '../../oidc/provider';
import { accessLine, marbleCreatedBy } from './access-line';
import { auth, call, json } from '../support/answers';
import { ServerProcess, cleanup, sqliteUrl, startServer } from '../support/process';

describe('the writer in the access log', () => {
  let provider: OidcProvider;
  let server: ServerProcess;

  beforeAll(async () => {
    provider = await OidcProvider.start(scopesOf(['marbles']), [
      { id: 'marbles-bot', secret: 'marbles-bot-secret', scopes: ['marbles:write'] },
    ]);
    server = await startServer({
      DATABASE_URL: sqliteUrl(),
      DEMO_DATA: 'true',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      AUTH_ISSUER: provider.issuer,
      AUTH_AUDIENCE: AUDIENCE,
    });
    await server.waitReady();
  });
  afterAll(async () => {
    await cleanup();
    await provider?.stop();
  });

  it("should log the token's sub as the actor of a write, and no actor without a token", async () => {
    const token = await provider.token('marbles-bot', ['marbles:write']);
    const res = await call(
      server.url('/api/demo/marbles'),
      json('POST', { name: 'Logged Marble' }, { ...auth(token), 'X-Request-Id': 'bot-write' }),
    );
    expect(res.status).toBe(201);
    const line = await accessLine(server, 'bot-write');
    expect(line.req).toEqual(marbleCreatedBy('bot-write', 'marbles-bot'));
    expect(line.res).toEqual({ status: 201 });

    const anonymous = await fetch(server.url('/api/demo/marbles/1'), {
      headers: { 'X-Request-Id': 'anonymous-read' },
    });
    expect(anonymous.status).toBe(200);
    const read = await accessLine(server, 'anonymous-read');
    expect(read.req).toEqual({ id: 'anonymous-read', method: 'GET', path: '/api/demo/marbles/1' });
  });
});
