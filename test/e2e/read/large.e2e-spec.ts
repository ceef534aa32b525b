/**
 * Sizes past the everyday: an unpaginated list whose to-many relation spans more owners than one
 * statement can bind on SQLite, and a read that carries a body nobody asked for.
 */
import { useApp } from '../support/harness';

describe('read side: large and odd requests', () => {
  const t = useApp();

  it('should list 2500 movies with their users, loading the users in chunks', async () => {
    const q = (name: string) => t.dataSource.driver.escape(name);
    await t.insert('users', [{ id: 1, login: 'ann' }]);
    const movies = Array.from({ length: 2500 }, (_, i) => [
      i + 1,
      `Movie ${String(i + 1).padStart(4, '0')}`,
      '2024-05-01 12:00:00.000',
      '2024-05-01 12:00:00.000',
    ]);
    for (let start = 0; start < movies.length; start += 500) {
      const chunk = movies.slice(start, start + 500);
      await t.dataSource.query(
        `INSERT INTO ${q('movies')} (${q('id')}, ${q('name')}, ${q('created_at')}, ${q('updated_at')}) VALUES ` +
          chunk.map(() => '(?, ?, ?, ?)').join(', '),
        chunk.flat(),
      );
      await t.dataSource.query(
        `INSERT INTO ${q('movies_users')} (${q('movie_id')}, ${q('user_id')}) VALUES ` +
          chunk.map(() => '(?, 1)').join(', '),
        chunk.map((m) => m[0]),
      );
    }
    const res = await t.http().get('/api/plain/movies').expect(200);
    expect(res.body).toHaveLength(2500);
    expect(res.body[2499]).toEqual({
      id: 2500,
      created_at: '2024-05-01T12:00:00.000Z',
      name: 'Movie 2500',
      price: null,
      updated_at: '2024-05-01T12:00:00.000Z',
      genres: [],
      users: [{ id: 1, login: 'ann' }],
    });
    expect(res.body.every((m: { users: unknown[] }) => m.users.length === 1)).toBe(true);
  });

  it('should ignore the body of a GET, whatever its type', async () => {
    const res = await t.request({
      path: '/api/demo/emails/ping',
      type: 'application/x-www-form-urlencoded',
      body: 'x=1',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'pong' });
  });
});
