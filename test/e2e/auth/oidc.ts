/**
 * What the access-control suites share: a real OpenID Connect provider (test/oidc) with a client
 * per kind of access, started before the app and stopped after it, and the state of every table
 * (nothing may be written by a refused request).
 */
import { AccessControl, COLLECTIONS } from '../../sources';
import { AUDIENCE, Client, OidcProvider, scopesOf } from '../../oidc/provider';
import { AppOptions, HOOK_TIMEOUT, TestApp, useApp } from '../support/harness';

export const PLURALS = COLLECTIONS.map((c) => c.declaration.plural);

/** Clients of the provider, by what they may do. */
export const CLIENTS: Client[] = [
  { id: 'admin', secret: 'admin-secret-0123456789', scopes: ['records:read', 'records:write'] },
  { id: 'marbles-bot', secret: 'marbles-bot-secret-0123', scopes: ['marbles:write'] },
  { id: 'marbles-reader', secret: 'marbles-reader-secret-01', scopes: ['marbles:read'] },
  { id: 'emails-bot', secret: 'emails-bot-secret-012345', scopes: ['emails:write'] },
  { id: 'reader', secret: 'reader-secret-0123456789', scopes: ['records:read'] },
  { id: 'nobody', secret: 'nobody-secret-0123456789', scopes: ['profile'] },
  { id: 'webhooks-admin', secret: 'webhooks-admin-secret-01', scopes: ['webhooks:admin'] },
];

/** Starts the provider before the suite's app (register it first) and stops it after. */
export function useProvider(): { provider: OidcProvider } {
  const holder = {} as { provider: OidcProvider };
  beforeAll(async () => {
    holder.provider = await OidcProvider.start([...scopesOf(PLURALS), 'webhooks:admin'], CLIENTS);
  }, HOOK_TIMEOUT);
  afterAll(() => holder.provider?.stop(), HOOK_TIMEOUT);
  return holder;
}

/**
 * Registers a hook (after the app's) that waits until the app holds the issuer's keys: on a
 * loaded machine the provider may answer the app's first fetch late, and a suite that counts
 * requests must not see a 503 (or a request counted by address) for it.
 */
export function useKeysReady(t: TestApp): void {
  beforeAll(async () => {
    const verifier = t.app.get(AccessControl).verifier!;
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        return await verifier.warmUp();
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }, HOOK_TIMEOUT);
}

/**
 * How every suite that sends tokens starts: the provider, an app that takes its tokens for
 * writes with reads left open (`options` adds the rest: the seed, a static API token, rate
 * limits), and the issuer's keys fetched before the first test.
 */
export function useTokenApp(options: AppOptions): { oidc: { provider: OidcProvider }; t: TestApp } {
  const oidc = useProvider();
  const t = useApp(() => ({
    auth: { issuer: oidc.provider.issuer, audience: [AUDIENCE], readsRequired: false },
    ...options,
  }));
  useKeysReady(t);
  return { oidc, t };
}

/**
 * Every row of every table the collections write (their demo data's tables: join tables
 * included), and the users, to compare before and after; rows in a stable order whatever their
 * columns.
 */
export async function everything(t: TestApp): Promise<unknown> {
  const tables = ['users', ...COLLECTIONS.flatMap((c) => c.demo.tables)];
  const rows: Record<string, unknown> = {};
  for (const table of tables) {
    const all = await t.query(`SELECT * FROM ${table}`);
    rows[table] = all.map((row) => JSON.stringify(row)).sort();
  }
  return rows;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
