/**
 * What the access-control rows of `npm run bench` need besides the servers: an OpenID Connect
 * provider (test/oidc/provider-process.mjs, the oidc-provider package) on 127.0.0.1 with a
 * client allowed records:read and records:write, the JWT it issues through the client
 * credentials grant (valid a day: longer than any run), and a redis-server of the benchmark's
 * own on a free port (BENCH_REDIS_URL instead, when set). Everything it starts it stops.
 */
const { spawn } = require('node:child_process');
const { createServer } = require('node:net');
const path = require('node:path');

const AUDIENCE = 'records-api';
const CLIENT = {
  id: 'bench',
  secret: 'bench-secret-0123456789',
  scopes: ['records:read', 'records:write'],
};

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves with the first stdout line of `child` that matches `pattern`. */
function lineOf(child, pattern, what) {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${output}`)), 30_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}): ${output}`)));
  });
}

async function startProvider() {
  const { exportJWK, generateKeyPair } = require('jose');
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const key = { ...(await exportJWK(privateKey)), kid: 'bench-1', alg: 'ES256', use: 'sig' };
  const child = spawn(
    process.execPath,
    [path.join(__dirname, '..', '..', 'test', 'oidc', 'provider-process.mjs')],
    {
      env: {
        PATH: process.env.PATH,
        OIDC_SETTINGS: JSON.stringify({
          keys: [key],
          audience: AUDIENCE,
          resource: `urn:${AUDIENCE}`,
          scopes: CLIENT.scopes,
          clients: [CLIENT],
          ttl: 86_400,
        }),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    },
  );
  const [, port] = await lineOf(child, /^listening (\d+)$/m, 'the OIDC provider');
  const issuer = `http://127.0.0.1:${port}`;
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      scope: CLIENT.scopes.join(' '),
    }),
  });
  const body = await res.json();
  if (!body.access_token)
    throw new Error(`no token from the OIDC provider: ${JSON.stringify(body)}`);
  return { child, issuer, token: body.access_token };
}

async function startRedis() {
  if (process.env.BENCH_REDIS_URL) return { url: process.env.BENCH_REDIS_URL };
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  await lineOf(child, /Ready to accept connections/, 'redis-server');
  return { child, url: `redis://127.0.0.1:${port}` };
}

/** Starts what `needs` names ({ oidc, redis }); `stop()` ends it all. */
async function startAccessDependencies(needs) {
  const started = [];
  const result = { audience: AUDIENCE, stop: async () => undefined };
  try {
    if (needs.oidc) {
      const provider = await startProvider();
      started.push(provider.child);
      Object.assign(result, { issuer: provider.issuer, token: provider.token });
    }
    if (needs.redis) {
      const redis = await startRedis();
      if (redis.child) started.push(redis.child);
      result.redisUrl = redis.url;
    }
  } finally {
    result.stop = async () => {
      for (const child of started) {
        if (child.exitCode !== null) continue;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    };
  }
  return result;
}

module.exports = { startAccessDependencies };
