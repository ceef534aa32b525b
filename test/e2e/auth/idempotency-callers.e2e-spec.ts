/**
 * Idempotency keys belong to their caller (docs/safe-writes.md): a key is scoped to the token's
 * `sub`, the static API token, or no credentials. Another caller sending the same key, even with
 * the same body, is a new request of its own (run, with its own answer), never a replay of the
 * first caller's answer; each caller's retry replays its own answer.
 */
import { bearer, useTokenApp } from './oidc';
import { MISMATCH, expectReplayOf } from '../safe-writes/idempotency';
import { ONE_OF_EACH } from '../support/fixtures';

const API_TOKEN = 'static-api-token-0123456789';
const MARBLE = { name: 'Shared Key Marble' };

describe('Idempotency-Key: keys belong to their caller', () => {
  const { oidc, t } = useTokenApp({ apiToken: API_TOKEN, seedEach: ONE_OF_EACH });
  const apiToken = { Authorization: `Bearer ${API_TOKEN}` };

  const send = (
    method: 'post' | 'patch',
    path: string,
    headers: Record<string, string>,
    body?: object,
  ) => t.request({ method, path, body, headers: { 'Idempotency-Key': 'shared-1', ...headers } });

  it("should run another caller's key and body as its own request, never replaying the first caller's 201", async () => {
    const admin = bearer(await oidc.provider.token('admin', ['records:read', 'records:write']));
    const bot = bearer(await oidc.provider.token('marbles-bot', ['marbles:write']));

    const first = await send('post', '/api/demo/marbles', admin, MARBLE);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The bot's own request runs: the name is taken now, by the admin's marble.
    const theirs = await send('post', '/api/demo/marbles', bot, MARBLE);
    expect(theirs.status).toBe(400);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.headers.location).toBeUndefined();
    expect(theirs.body).toEqual({
      message: 'Validation failed; nothing was saved.',
      errors: { name: ['A marble with this name already exists.'] },
    });
    // Another body under the key: the API token's first request with it, not a 422.
    const token = await send('post', '/api/demo/marbles', apiToken, { name: 'Token Marble' });
    expect(token.status).toBe(201);
    expect(token.headers['idempotent-replayed']).toBeUndefined();

    // Each caller's retry is its own answer, byte for byte; its own key reused is 422.
    expectReplayOf(await send('post', '/api/demo/marbles', bot, MARBLE), theirs);
    expectReplayOf(await send('post', '/api/demo/marbles', admin, MARBLE), first);
    expectReplayOf(
      await send('post', '/api/demo/marbles', apiToken, { name: 'Token Marble' }),
      token,
    );
    const reused = await send('post', '/api/demo/marbles', admin, { name: 'Other Marble' });
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ message: MISMATCH });

    const names = (await t.rows('marbles')).map((row) => row.name);
    expect(names.filter((name) => name === MARBLE.name || name === 'Token Marble')).toEqual([
      MARBLE.name,
      'Token Marble',
    ]);
    const keys = await t.rows('idempotency_keys', 'caller');
    expect(keys.map((row) => [row.caller, row.idempotency_key, Number(row.status)])).toEqual([
      ['api-token', 'shared-1', 201],
      ['sub:admin', 'shared-1', 201],
      ['sub:marbles-bot', 'shared-1', 400],
    ]);
  });

  it('should run the same action once per caller under one key', async () => {
    const [id] = await t.ids('marbles');
    const path = `/api/demo/marbles/${id}/toggle_is_discounted`;
    const admin = bearer(await oidc.provider.token('admin', ['records:read', 'records:write']));
    const bot = bearer(await oidc.provider.token('marbles-bot', ['marbles:write']));
    const answers = [];
    for (const caller of [admin, bot, apiToken]) {
      const res = await send('patch', path, caller);
      expect([res.status, res.headers['idempotent-replayed']]).toEqual([200, undefined]);
      answers.push(res);
    }
    // Three toggles: versions 2, 3 and 4.
    expect(answers.map((res) => res.headers.etag)).toEqual([`"${id}.2"`, `"${id}.3"`, `"${id}.4"`]);
    for (const [i, caller] of [admin, bot, apiToken].entries()) {
      expectReplayOf(await send('patch', path, caller), answers[i]);
    }
    const [row] = await t.query(`SELECT version FROM marbles WHERE id = ${id}`);
    expect(Number(row.version)).toBe(4);
  });
});
