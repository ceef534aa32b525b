/**
 * Orderings a large table can afford: every single-field ordering of a paginated collection, in
 * either direction, is read along an index (no sort of the table), on page 1 and on a deep page
 * (the deferred join). The statements are the ones the app runs for the request, explained by the
 * database itself. Exceptions, documented in README "Large tables": `description` (TEXT) and paths
 * through a reference.
 */
import { scalarFields, SqlDatabase, EMAILS, MARBLES, PHONE_NUMBERS } from '../sources';
import { TestApp, useApp } from './harness';

/** Enough rows for MariaDB to prefer an index over sorting (at 10 000 narrow rows it still sorts). */
const ROWS = 30_000;
const USERS = 60;

/** Columns no index orders: README "Large tables" gives what ordering by them costs. */
const UNINDEXED: Record<string, string[]> = { marbles: ['description'] };

function seedRows() {
  const at = (i: number) => `2024-0${1 + (i % 9)}-1${i % 10} 12:00:0${i % 10}.${i % 1000}`;
  const users = Array.from({ length: USERS }, (_, i) => ({ id: i + 1, login: `user${i + 1}` }));
  const marbles = Array.from({ length: ROWS }, (_, i) => ({
    id: i + 1,
    name: `Marble ${i + 1}`,
    radius_mm: 1 + (i % 40),
    price: i % 7 === 0 ? null : `${1 + (i % 500)}.${String(i % 100).padStart(2, '0')}`,
    is_discounted: i % 3 === 0,
    created_at: at(i),
    updated_at: at(i + 1),
    user_id: i % 5 === 0 ? null : 1 + (i % USERS),
    description: `about ${i}`,
    picture: i % 4 === 0 ? null : `p${i % 97}.png`,
  }));
  const emails = Array.from({ length: ROWS }, (_, i) => ({
    id: i + 1,
    email: `e${i + 1}@example.com`,
    is_primary: i < USERS,
    user_id: 1 + (i % USERS),
  }));
  const phones = Array.from({ length: ROWS }, (_, i) => ({
    id: i + 1,
    number: `+1 555 ${String(i).padStart(6, '0')}`,
    user_id: 1 + (i % USERS),
  }));
  return { users, marbles, emails, phone_numbers: phones };
}

interface Statement {
  sql: string;
  parameters?: unknown[];
}

/** The read statements the app runs while answering `path`. */
async function statementsOf(t: TestApp, path: string): Promise<Statement[]> {
  const db = t.app.get(SqlDatabase);
  const seen: Statement[] = [];
  const query = db.query.bind(db);
  const spy = jest.spyOn(db, 'query').mockImplementation((sql, parameters) => {
    seen.push({ sql, parameters });
    return query(sql, parameters);
  });
  try {
    await t.http().get(path).expect(200);
  } finally {
    spy.mockRestore();
  }
  return seen;
}

/** How the database reads a statement, as one line per step, and whether any step sorts. */
async function plan(
  t: TestApp,
  { sql, parameters }: Statement,
): Promise<{ sorts: boolean; plan: string }> {
  if (t.dialect === 'mysql') {
    const rows = await t.query(`EXPLAIN ${sql}`, parameters);
    const lines = rows.map((r) => `${r.table}: ${r.key ?? 'no key'} ${r.Extra ?? ''}`);
    return {
      sorts: rows.some((r) => /filesort|temporary/i.test(String(r.Extra))),
      plan: lines.join('\n'),
    };
  }
  const rows = await t.query(`EXPLAIN QUERY PLAN ${sql}`, parameters);
  const lines = rows.map((r) => String(r.detail));
  return { sorts: lines.some((l) => /TEMP B-TREE/.test(l)), plan: lines.join('\n') };
}

describe('read side: orderings served by an index', () => {
  const t = useApp({
    seed: async (h) => {
      await h.insertAll(seedRows());
      if (h.dialect === 'mysql') await h.query('ANALYZE TABLE marbles, emails, phone_numbers');
    },
  });

  const orderings = [MARBLES, EMAILS, PHONE_NUMBERS].flatMap((resource) =>
    scalarFields(resource)
      .map((field) => field.name)
      .filter((name) => !(UNINDEXED[resource.plural] ?? []).includes(name))
      .flatMap((name) => [name, `-${name}`])
      .map((ordering) => [resource.path, ordering] as const),
  );

  it('should cover every scalar field but the documented exceptions', () => {
    expect(orderings.filter(([path]) => path.endsWith('/marbles')).map(([, o]) => o)).toEqual([
      'id',
      '-id',
      'name',
      '-name',
      'radius_mm',
      '-radius_mm',
      'price',
      '-price',
      'is_discounted',
      '-is_discounted',
      'created_at',
      '-created_at',
      'updated_at',
      '-updated_at',
      'user_id',
      '-user_id',
      'picture',
      '-picture',
    ]);
  });

  it.each(orderings)(
    'should read %s?ordering=%s along an index, on page 1 and page 50',
    async (path, ordering) => {
      for (const page of [1, 50]) {
        const statements = await statementsOf(
          t,
          `${path}?ordering=${ordering}&page=${page}&page_size=30`,
        );
        // The statement that reads the page; on a deep page, the scan for its ids (the deferred
        // join), whose few rows the outer statement then puts back in order.
        const read = statements.find((s) => /ORDER BY/.test(s.sql))!;
        const keys = /FROM \((SELECT .*?)\) k JOIN/.exec(read.sql);
        expect(keys !== null).toBe(page > 1);
        const scan = keys ? { sql: keys[1], parameters: read.parameters } : read;
        const { sorts, plan: steps } = await plan(t, scan);
        expect({ page, sorts, steps }).toEqual({ page, sorts: false, steps });
      }
    },
    60_000,
  );
});
