/**
 * The one-primary rule of e-mails: at most one e-mail per user is primary; making one primary
 * clears the flag on that user's others in the same request, and leaves other users' addresses
 * alone. Every case reads all of the users' e-mails back.
 */
import { useApp } from '../support/harness';
import { ANN, BOB, CLEO, USERS } from '../support/fixtures';
import { expectInvalid, expectJson, pick } from '../support/http';

const FIXTURE = [
  { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
  { id: 2, email: 'ann.work@example.com', is_primary: false, user_id: 1 },
  { id: 3, email: 'bob@example.com', is_primary: true, user_id: 2 },
  { id: 4, email: 'cleo@example.com', is_primary: false, user_id: 3 },
];

/** The primary flags of all e-mails, by id. */
function flags(rows: Record<string, unknown>[]) {
  return rows.map((r) => [r.id, r.user_id, r.is_primary]);
}

describe('write: one primary e-mail per user', () => {
  const t = useApp({ seedEach: { users: USERS, emails: FIXTURE } });

  it('should clear the old primary of the user when a primary e-mail is created', async () => {
    const res = await t.request({
      method: 'post',
      path: '/api/demo/emails',
      body: { email: 'ann.new@example.com', user_id: 1, is_primary: true },
    });
    expectJson(res, 201);
    const id = await t.lastId('emails');
    expect(res.body).toEqual({ id, email: 'ann.new@example.com', is_primary: true, user: ANN });
    expect(await t.stored('emails')).toEqual([
      { ...FIXTURE[0], is_primary: false },
      FIXTURE[1],
      FIXTURE[2],
      FIXTURE[3],
      { id, email: 'ann.new@example.com', is_primary: true, user_id: 1 },
    ]);

    const listed = await t.http().get('/api/demo/emails?user_id=1');
    expectJson(listed, 200);
    expect(pick(listed.body.results, 'id', 'is_primary')).toEqual([
      [1, false],
      [2, false],
      [id, true],
    ]);
  });

  it('should keep the primary when a non-primary e-mail is created', async () => {
    const res = await t.request({
      method: 'post',
      path: '/api/demo/emails',
      body: { email: 'ann.other@example.com', user_id: 1 },
    });
    expectJson(res, 201);
    const id = await t.lastId('emails');
    expect(res.body).toEqual({
      id,
      email: 'ann.other@example.com',
      is_primary: false,
      user: ANN,
    });
    expect(await t.stored('emails')).toEqual([
      ...FIXTURE,
      { id, email: 'ann.other@example.com', is_primary: false, user_id: 1 },
    ]);
  });

  it('should move the primary flag when another e-mail of the user is made primary', async () => {
    for (const method of ['patch', 'put'] as const) {
      const target = method === 'patch' ? 2 : 1;
      const res = await t.http()[method](`/api/demo/emails/${target}`).send({ is_primary: '1' });
      expectJson(res, 200);
      expect(res.body).toEqual({
        ...{ id: target, email: FIXTURE[target - 1].email },
        is_primary: true,
        user: ANN,
      });
      const rows = await t.stored('emails');
      expect(flags(rows)).toEqual([
        [1, 1, target === 1],
        [2, 1, target === 2],
        [3, 2, true],
        [4, 3, false],
      ]);
    }
  });

  it("should clear the new owner's primary when a primary e-mail moves to another user", async () => {
    const res = await t.http().patch('/api/demo/emails/1').send({ user_id: 2 });
    expectJson(res, 200);
    expect(res.body).toEqual({ id: 1, email: 'ann@example.com', is_primary: true, user: BOB });
    expect(flags(await t.stored('emails'))).toEqual([
      [1, 2, true],
      [2, 1, false],
      [3, 2, false],
      [4, 3, false],
    ]);
  });

  it('should leave the flags alone when an update is refused', async () => {
    const res = await t.http().patch('/api/demo/emails/2').send({ is_primary: true, user_id: 99 });
    expectInvalid(res, { user_id: ['No user with id 99.'] });
    expect(await t.stored('emails')).toEqual(FIXTURE);
  });

  it('should leave exactly one primary when a bulk create has two primaries for one user', async () => {
    const res = await t.request({
      method: 'post',
      path: '/api/demo/emails',
      body: [
        { email: 'cleo.a@example.com', user_id: 3, is_primary: true },
        { email: 'cleo.b@example.com', user_id: 3, is_primary: true },
        { email: 'bob.b@example.com', user_id: 2, is_primary: false },
      ],
    });
    expectJson(res, 201);
    expect(res.body.message).toBe('Bulk create successful.');
    // The answer shows the records as stored, the flags too.
    const rows = await t.stored('emails');
    const [a, b, c] = rows.slice(4).map((r) => r.id);
    expect(pick(res.body.records, 'id', 'email', 'user')).toEqual([
      [a, 'cleo.a@example.com', CLEO],
      [b, 'cleo.b@example.com', CLEO],
      [c, 'bob.b@example.com', BOB],
    ]);
    expect(res.body.records.map((e: { is_primary: boolean }) => e.is_primary)).toEqual(
      rows.slice(4).map((r) => r.is_primary),
    );
    const primaries = (user: number) =>
      rows.filter((r) => r.user_id === user && r.is_primary).map((r) => r.id);
    expect(primaries(3)).toHaveLength(1);
    expect([a, b]).toContain(primaries(3)[0]);
    expect(primaries(1)).toEqual([1]);
    expect(primaries(2)).toEqual([3]);
    expect(rows).toHaveLength(7);
  });

  it('should leave exactly one primary when update_all makes two e-mails of a user primary', async () => {
    const res = await t.request({
      method: 'put',
      path: '/api/demo/emails',
      body: [
        { id: 1, is_primary: true },
        { id: 2, is_primary: true },
        { id: 4, is_primary: true },
      ],
    });
    expectJson(res, 200);
    const rows = await t.stored('emails');
    const annPrimaries = rows.filter((r) => r.user_id === 1 && r.is_primary);
    expect(annPrimaries).toHaveLength(1);
    expect(flags(rows).filter(([, user]) => user !== 1)).toEqual([
      [3, 2, true],
      [4, 3, true],
    ]);
    expect(pick(res.body.records, 'id', 'is_primary')).toEqual(
      [1, 2, 4].map((id) => [id, rows.find((r) => r.id === id)!.is_primary]),
    );
  });

  it('should move the ETag of the e-mail whose flag is cleared, and let a later item of update_all write it', async () => {
    const before = (await t.http().get('/api/demo/emails/1')).headers.etag as string;
    const moved = await t.http().patch('/api/demo/emails/2').send({ is_primary: true });
    expectJson(moved, 200);
    const cleared = await t.http().get('/api/demo/emails/1');
    expect(cleared.body.is_primary).toBe(false);
    expect(cleared.headers.etag).not.toBe(before);
    // Its old tag names a version it has left: 412.
    const stale = await t
      .http()
      .patch('/api/demo/emails/1')
      .set('If-Match', before)
      .send({ email: 'x@example.com' });
    expect(stale.status).toBe(412);

    // Item 1 clears e-mail 2, which item 2 then writes: it is written as it is by then.
    const res = await t.request({
      method: 'put',
      path: '/api/demo/emails',
      body: [
        { id: 1, is_primary: true },
        { id: 2, email: 'ann.office@example.com' },
      ],
    });
    expectJson(res, 200);
    expect(pick(res.body.records, 'id', 'email', 'is_primary')).toEqual([
      [1, 'ann@example.com', true],
      [2, 'ann.office@example.com', false],
    ]);
    expect(flags(await t.stored('emails'))).toEqual([
      [1, 1, true],
      [2, 1, false],
      [3, 2, true],
      [4, 3, false],
    ]);
  });

  it('should keep exactly one primary under 10 concurrent primary creates for one user', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.request({
          method: 'post',
          path: '/api/demo/emails',
          body: { email: `race${i}@example.com`, user_id: 1, is_primary: true },
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(new Array(10).fill(201));
    const rows = await t.stored('emails');
    expect(rows).toHaveLength(14);
    expect(rows.filter((r) => r.user_id === 1 && r.is_primary)).toHaveLength(1);
    expect(rows.filter((r) => r.user_id === 2 && r.is_primary).map((r) => r.id)).toEqual([3]);
  });

  it('should answer 16 concurrent updates making different e-mails of one user primary with 200, leaving one primary', async () => {
    await t.insert(
      'emails',
      Array.from({ length: 16 }, (_, i) => ({
        id: 10 + i,
        email: `many${i}@example.com`,
        is_primary: false,
        user_id: 1,
      })),
    );
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        t.request({
          method: 'patch',
          path: `/api/demo/emails/${10 + i}`,
          body: { is_primary: true },
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(new Array(16).fill(200));
    const rows = await t.stored('emails');
    expect(rows.filter((r) => r.user_id === 1 && r.is_primary)).toHaveLength(1);
  });

  it('should allow a user to have no primary e-mail', async () => {
    const res = await t.http().patch('/api/demo/emails/1').send({ is_primary: false });
    expectJson(res, 200);
    expect(res.body).toEqual({ id: 1, email: 'ann@example.com', is_primary: false, user: ANN });
    // The fixture, with ann's first address no longer primary.
    const expected = FIXTURE.map((e) => (e.id === 1 ? { ...e, is_primary: false } : e));
    expect(flags(await t.stored('emails'))).toEqual(flags(expected));
  });
});
