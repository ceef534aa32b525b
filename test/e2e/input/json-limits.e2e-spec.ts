/**
 * JSON bodies cannot stall the service, like XML ones: a body nested deeper than 64 levels, or
 * with more than 50,000 values, is refused with 400 naming the limit, found by a scan of the text
 * before JSON.parse builds anything. Bodies within the limits, a bulk create of 1000 records sent
 * back as read among them, are read as before.
 */
import { Post, expectRefusedInBoth } from './body-limits';
import { useApp } from '../support/harness';
import { USERS } from '../support/fixtures';
import { expectError } from '../support/http';

const DEEP = 'JSON body is nested more than 64 levels deep.';
const MANY = 'JSON body has more than 50000 values.';

describe('write: JSON body limits', () => {
  const t = useApp({ seedEach: { users: USERS } });
  const postJson: Post = (body, path = '/api/demo/marbles') =>
    t.raw('post', path, 'application/json', body);

  it('should refuse 500,000 nested arrays (1 MB) with 400, in JSON and XML', async () => {
    const body = '['.repeat(500_000) + ']'.repeat(500_000);
    await expectRefusedInBoth(t, postJson, body, DEEP);
  });

  it('should refuse a body one level too deep, and read one at the limit', async () => {
    // {"name": …, "x": [[…]]}: the object is one level, the arrays the rest.
    const nested = (depth: number) =>
      `{"name": "Deep", "x": ${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expectError(await postJson(nested(65)), 400, { message: DEEP });
    // 64 deep is read; the record then has an unknown field, an ordinary 400.
    const res = await postJson(nested(64));
    expect(res.status).toBe(400);
    expect(res.body.message).not.toBe(DEEP);
    // Brackets inside strings are text, escaped quotes included.
    const quoted = await postJson(`{"name": "${'[\\"'.repeat(100)}"}`);
    expect(quoted.status).toBe(201);
    expect(quoted.body.name).toBe('["'.repeat(100));
  });

  it('should refuse more than 50,000 values, even flat, with 400', async () => {
    const flat = `{"name": "Flat", "x": [${'0,'.repeat(50_000)}0]}`;
    expectError(await postJson(flat), 400, { message: MANY });
    expect(await t.stored('marbles')).toEqual([]);
  });

  it('should still read a bulk create of 1000 marbles sent back whole', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      id: i + 1,
      name: `M ${i}`,
      radius_mm: 3,
      price: '1.5',
      is_discounted: false,
      user_id: 1,
      description: 'd',
      created_at: '2024-05-01T12:00:00.000Z',
      updated_at: '2024-05-01T12:00:00.000Z',
      user: { id: 1, login: 'ann' },
      picture: null,
    }));
    const res = await postJson(JSON.stringify(items));
    expect(res.status).toBe(201);
    expect(res.body.records).toHaveLength(1000);
  }, 60_000);
});
