/**
 * A real OpenID Connect provider (scripts/oidc-provider.mjs, the oidc-provider package) for the
 * tests, on 127.0.0.1 and a port of its own: discovery, a JWKS, and the client credentials grant
 * issuing JWT access tokens for one resource server (the records service) with the scopes each
 * client may ask for. (`npm run dev:issuer` serves the same provider for trying it by hand.)
 *
 * Started by test/oidc/provider.ts as a child process (oidc-provider is an ES module, which
 * Jest's loader does not take), with its settings in OIDC_SETTINGS (JSON: the private signing
 * keys, the audience, the scopes, the clients). It prints `listening <port>` once it serves.
 * A line `keys <JSON list of private JWKs>` on its standard input replaces its keys while it
 * runs (key rotation: the first key signs); it answers `keys ok`.
 */
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { oidcProvider } from '../../scripts/oidc-provider.mjs';

const settings = JSON.parse(process.env.OIDC_SETTINGS);

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = (keys) => oidcProvider(issuer, { ...settings, keys });

let handler = provider(settings.keys).callback();
server.on('request', (req, res) => handler(req, res));

const commands = createInterface({ input: process.stdin });
commands.on('line', (line) => {
  if (line.startsWith('keys ')) {
    handler = provider(JSON.parse(line.slice(5))).callback();
    process.stdout.write('keys ok\n');
  }
});
// The test that started it has gone: so does the provider.
commands.on('close', () => process.exit(0));

process.stdout.write(`listening ${server.address().port}\n`);
