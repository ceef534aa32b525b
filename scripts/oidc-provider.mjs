/**
 * A real OpenID Connect provider (the oidc-provider package, a devDependency) for one resource
 * server, the records service: discovery, a JWKS, and the client credentials grant issuing JWT
 * access tokens with the scopes each client may ask for. Shared by the tests' provider
 * (test/oidc/provider-process.mjs, on a port of its own) and the development issuer
 * (scripts/dev-issuer.mjs, `npm run dev:issuer`).
 */
import Provider from 'oidc-provider';

/**
 * The provider of `issuer` (its URL), signing with the first of `settings.keys` (private JWKs),
 * for `settings.audience` (the `aud` of its tokens) and `settings.resource` (the resource
 * indicator the clients' grants are for), with `settings.scopes` and `settings.clients`
 * ({id, secret, scopes}); tokens live `settings.ttl` seconds (600 by default). Its `callback()`
 * is a request handler for node:http.
 */
export function oidcProvider(issuer, settings) {
  const { keys } = settings;
  const resourceServer = {
    scope: settings.scopes.join(' '),
    audience: settings.audience,
    accessTokenFormat: 'jwt',
    accessTokenTTL: settings.ttl ?? 600,
    jwt: { sign: { alg: keys[0].alg } },
  };
  const made = new Provider(issuer, {
    clients: settings.clients.map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: c.scopes.join(' '),
      token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: keys[0].alg,
    })),
    jwks: { keys },
    scopes: settings.scopes,
    ttl: { ClientCredentials: settings.ttl ?? 600 },
    features: {
      clientCredentials: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => settings.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: () => resourceServer,
      },
    },
  });
  // A quiet provider: its errors are answered to the client, which is what a caller reads.
  made.on('server_error', (_ctx, error) => console.error(`oidc-provider: ${error.message}`));
  return made;
}
