/**
 * The tests' OpenID Connect provider (provider-process.mjs, the oidc-provider package) as a child
 * process on 127.0.0.1: `OidcProvider.start()` generates its signing key, starts it, and answers
 * tokens of its clients through the client credentials grant, as any client of a real issuer
 * gets them. `rotate()` gives it a new signing key while it runs (the old one still published),
 * `retire()` drops the old ones. `forge()` signs claims of the test's choosing with the
 * provider's own key: the expired, not-yet-valid and wrong-audience tokens an attacker replays.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface, Interface } from 'node:readline';
import { JWK, SignJWT, exportJWK, generateKeyPair, importJWK } from 'jose';

export const AUDIENCE = 'records-api';

/** Scopes of the collections the service serves, and the two that reach them all. */
export function scopesOf(plurals: readonly string[]): string[] {
  return [
    'records:read',
    'records:write',
    ...plurals.flatMap((p) => [`${p}:read`, `${p}:write`]),
    'profile',
  ];
}

export interface Client {
  id: string;
  secret: string;
  /** What it may ask for. */
  scopes: string[];
}

type PrivateJwk = JWK & { kid: string; alg: string };

let keyCount = 0;

/** A new ES256 signing key (private JWK), named `<prefix>-<n>`. */
export async function newKey(prefix = 'key'): Promise<PrivateJwk> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  keyCount += 1;
  return {
    ...(await exportJWK(privateKey)),
    kid: `${prefix}-${keyCount}-${process.pid}`,
    alg: 'ES256',
    use: 'sig',
  };
}

export class OidcProvider {
  private constructor(
    private readonly child: ChildProcess,
    private readonly lines: Interface,
    readonly issuer: string,
    private keys: PrivateJwk[],
    readonly clients: Client[],
  ) {}

  /** Starts a provider whose clients may ask for these scopes (see `scopesOf`). */
  static async start(scopes: string[], clients: Client[]): Promise<OidcProvider> {
    const keys = [await newKey()];
    const child = spawn(process.execPath, [join(__dirname, 'provider-process.mjs')], {
      env: {
        PATH: process.env.PATH,
        OIDC_SETTINGS: JSON.stringify({
          keys,
          audience: AUDIENCE,
          resource: `urn:${AUDIENCE}`,
          scopes,
          clients,
        }),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // oidc-provider warns about the in-memory adapter and the runtime on stderr: not a failure.
    child.stderr!.resume();
    const lines = createInterface({ input: child.stdout! });
    const port = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the OIDC provider did not start')), 30_000);
      lines.once('line', (line) => {
        clearTimeout(timer);
        const match = /^listening (\d+)$/.exec(line);
        if (match) resolve(match[1]);
        else reject(new Error(`the OIDC provider said: ${line}`));
      });
      child.once('exit', (code) => reject(new Error(`the OIDC provider exited (${code})`)));
    });
    return new OidcProvider(child, lines, `http://127.0.0.1:${port}`, keys, clients);
  }

  get jwksUrl(): string {
    return `${this.issuer}/jwks`;
  }

  /** The key that signs now (private). */
  get signingKey(): PrivateJwk {
    return this.keys[0];
  }

  /** The kid of the key that signs now. */
  get signingKid(): string {
    return this.keys[0].kid;
  }

  /** A token of `client` with `scopes`, from the token endpoint (client credentials grant). */
  async token(client: string, scopes: string[]): Promise<string> {
    const { secret } = this.clients.find((c) => c.id === client)!;
    const res = await fetch(`${this.issuer}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client,
        client_secret: secret,
        scope: scopes.join(' '),
      }),
    });
    const body = (await res.json()) as { access_token?: string; error_description?: string };
    if (!res.ok || !body.access_token) {
      throw new Error(`token of ${client}: ${res.status} ${body.error_description}`);
    }
    return body.access_token;
  }

  /** A new signing key while it runs; the old ones stay published (a rotation's first step). */
  async rotate(): Promise<string> {
    this.keys = [await newKey('rotated'), ...this.keys];
    await this.setKeys();
    return this.signingKid;
  }

  /** Only the signing key stays published (a rotation's last step). */
  async retire(): Promise<void> {
    this.keys = this.keys.slice(0, 1);
    await this.setKeys();
  }

  /**
   * A JWT signed with the provider's signing key (or `key`), with these claims over the usual
   * ones (`iss`, `aud`, `sub`, `iat`, `exp` in 10 minutes) and this header over `alg` and `kid`.
   */
  async forge(
    claims: Record<string, unknown>,
    options: { key?: PrivateJwk; header?: Record<string, unknown> } = {},
  ): Promise<string> {
    const key = options.key ?? this.keys[0];
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: this.issuer,
      aud: AUDIENCE,
      sub: 'forger',
      iat: now,
      exp: now + 600,
      scope: 'records:write records:read',
      ...claims,
    })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt', ...options.header })
      .sign(await importJWK(key, 'ES256'));
  }

  /** The public keys the provider publishes. */
  async publishedKeys(): Promise<JWK[]> {
    const res = await fetch(this.jwksUrl);
    return ((await res.json()) as { keys: JWK[] }).keys;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }

  private async setKeys(): Promise<void> {
    const done = new Promise<void>((resolve) => {
      const onLine = (line: string) => {
        if (line !== 'keys ok') return;
        this.lines.off('line', onLine);
        resolve();
      };
      this.lines.on('line', onLine);
    });
    this.child.stdin!.write(`keys ${JSON.stringify(this.keys)}\n`);
    await done;
  }
}
