/**
 * JSON bodies cannot stall the service, like XML ones: a body nested deeper than 64 levels, with
 * more than 50,000 values, or with an object of more than 1000 keys, is refused with 400 naming
 * the limit, found by a scan of the text before JSON.parse builds anything. An error answer
 * names at most 20 fields and says how many more. Bodies within the limits, a bulk create of 1000 records sent
 * back as read among them, are read as before.
 */
import { Post, expectRefusedInBoth } from './body-limits';
import { useApp } from '../support/harness';
import { USERS } from '../support/fixtures';
import { expectError } from '../support/http';

const DEEP = 'JSON body is nested more than 64 levels deep.';
const MANY = 'JSON body has more than 50000 values.';
const WIDE = 'JSON body has an object with more than 1000 keys.';
const UNKNOWN = 'Unknown field; marble has no such field.';

/** `{"name": …}` and `count` unknown keys `k0`, `k1`, …: `count + 1` keys. */
const withUnknown = (count: number, record: Record<string, unknown> = { name: 'Wide' }) =>
  JSON.stringify({
    ...record,
    ...Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1])),
  });

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

  it('should refuse an object of 49,000 unknown keys (528 kB) in the scan, with a short answer', async () => {
    const body = withUnknown(48_999, { name: 'Wide', k: 'x'.repeat(46_000) });
    expect(body.length).toBeGreaterThan(520_000);
    await expectRefusedInBoth(t, postJson, body, WIDE);
    // Keys of nested objects count per object; an array's items are no keys.
    const nested = JSON.stringify({ name: 'N', x: JSON.parse(withUnknown(1000)) });
    expectError(await postJson(nested), 400, { message: WIDE });
    const items = JSON.stringify({ name: 'N', x: Array.from({ length: 5000 }, (_, i) => i) });
    expect((await postJson(items)).body).toEqual({
      message: 'Validation failed; nothing was saved.',
      errors: { x: [UNKNOWN] },
    });
  });

  it('should name at most 20 fields, the real ones first, and say how many more', async () => {
    // 1000 keys, the most an object may have: 999 unknown ones.
    const res = await postJson(
      withUnknown(999, { name: 'Wide', price: 'cheap' }).replace('"name":"Wide",', ''),
    );
    expect(res.status).toBe(400);
    const errors = res.body.errors as Record<string, string[]>;
    const named = Object.keys(errors);
    // Room is kept for each of the marble's 6 writable fields: 14 unknown keys are named.
    expect(named).toHaveLength(16);
    expect(res.body.message).toBe(
      'Validation failed; nothing was saved. 16 fields are listed, and 985 more.',
    );
    // The body's own fields' problems are never crowded out by unknown keys.
    expect(errors.name).toEqual(['This field is required.']);
    expect(errors.price).toEqual([expect.stringMatching(/^Must be a decimal number/)]);
    expect(named.filter((key) => key.startsWith('k'))).toEqual(
      Array.from({ length: 14 }, (_, i) => `k${i}`),
    );
    expect(Object.values(errors).filter((e) => e[0] === UNKNOWN)).toHaveLength(14);
    expect(Buffer.byteLength(res.text)).toBeLessThan(2000);

    // Fourteen or fewer: every one, and the message as it always was.
    const few = await postJson(withUnknown(14));
    expect(few.body.message).toBe('Validation failed; nothing was saved.');
    expect(Object.keys(few.body.errors)).toHaveLength(14);
    expect(await t.stored('marbles')).toEqual([]);
  });

  it("should name at most 20 fields of a bulk answer's items, and say how many more", async () => {
    const res = await postJson(JSON.stringify(Array.from({ length: 30 }, () => ({}))));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'Some items are invalid; nothing was saved. 20 fields are listed, and 10 more.',
      errors: Array.from({ length: 20 }, () => ({ name: ['This field is required.'] })),
    });
    // Items before the twentieth field keep their place, valid ones as null.
    const mixed = [{ name: 'Fine' }, ...Array.from({ length: 25 }, () => ({}))];
    const second = await postJson(JSON.stringify(mixed));
    expect(second.body.message).toBe(
      'Some items are invalid; nothing was saved. 20 fields are listed, and 5 more.',
    );
    expect(second.body.errors).toEqual([
      null,
      ...Array.from({ length: 20 }, () => ({ name: ['This field is required.'] })),
    ]);
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
