#!/usr/bin/env node
/**
 * `npm run dev:issuer`: an OpenID Connect issuer for trying the service's access control on this
 * machine (docs/access-control.md), at http://localhost:9400 (DEV_ISSUER_PORT moves it), listening
 * on 127.0.0.1 only. The provider is the tests' (scripts/oidc-provider.mjs: oidc-provider, a
 * devDependency, so a development tool: not in the image, not for production). Its settings are
 * scripts/dev-issuer.json: the audience `records-api`, `records:read` / `records:write` for every
 * collection, a read and a write scope for each collection it names, and two clients of the
 * client credentials grant whose secrets are public (`marbles-bot`, the walkthrough's, and
 * `records-admin`). A new signing key at every start (the service fetches it by its `kid`);
 * tokens live 10 minutes. Ctrl-C stops it.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import { oidcProvider } from './oidc-provider.mjs';

const config = JSON.parse(readFileSync(new URL('./dev-issuer.json', import.meta.url), 'utf8'));
const raw = process.env.DEV_ISSUER_PORT;
const port = raw ? Number(raw) : config.port;
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`Cannot start: DEV_ISSUER_PORT must be a port number (1-65535), got "${raw}".`);
  process.exit(1);
}
const issuer = `http://localhost:${port}`;

const { privateKey } = await generateKeyPair('ES256', { extractable: true });
const key = {
  ...(await exportJWK(privateKey)),
  kid: `dev-${Date.now().toString(36)}`,
  alg: 'ES256',
  use: 'sig',
};
const scopes = [
  'records:read',
  'records:write',
  ...config.collections.flatMap((c) => [`${c}:read`, `${c}:write`]),
];
const provider = oidcProvider(issuer, {
  keys: [key],
  audience: config.audience,
  resource: `urn:${config.audience}`,
  scopes,
  clients: config.clients,
});

const server = createServer(provider.callback());
server.on('error', (error) => {
  const why =
    error.code === 'EADDRINUSE'
      ? `port ${port} is in use by another process; stop it, or set DEV_ISSUER_PORT to a free port`
      : error.message;
  console.error(`Cannot start the development issuer: ${why}.`);
  process.exit(1);
});
server.listen(port, '127.0.0.1', () => {
  const clients = config.clients.map((c) => `${c.id} (secret ${c.secret}): ${c.scopes.join(' ')}`);
  console.log(
    [
      `Development issuer on ${issuer}, for trying access control (not for production).`,
      `Audience ${config.audience}; clients of the client credentials grant:`,
      ...clients.map((c) => `  ${c}`),
      'Ctrl-C stops it.',
    ].join('\n'),
  );
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
