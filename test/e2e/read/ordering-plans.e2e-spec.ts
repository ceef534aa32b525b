/**
 * Orderings a large table can afford: every single-field ordering of a paginated collection, in
 * either direction, is read along an index (no sort of the table), on page 1 and on a deep page
 * (the deferred join). The statements are the ones the app runs for the request, explained by the
 * database itself. A reference's id (`user.id`) is ordered by the record's own foreign key; a key
 * of the referenced table (`user.login`) by the walk of src/rest/sql/reference-walk.ts, whose
 * statements each read along an index, and whose pages are those of the plain join and sort.
 * A long text (`description`) is read along an index on its first characters. Exception,
 * documented in README "Large tables": a reference the record does not hold (an e-mail's
 * `billing_user`).
 */
import { scalarFields, EMAILS, MARBLES, PHONE_NUMBERS } from '../../sources';
import { TestApp, useApp } from '../support/harness';
import { Statement, readsOf } from '../support/statements';

/** Enough rows for MariaDB to prefer an index over sorting (at 10 000 narrow rows it still sorts). */
const ROWS = 30_000;
/** Enough users for both databases to read them along the login's index rather than sort them. */
const USERS = 3_000;

/** Columns ordered through an index on their first characters (index-walks.ts, PrefixWalk). */
const PREFIXED: Record<string, string[]> = { marbles: ['description'] };
/** A run of descriptions that share their first 100 characters, the indexed prefix. */
const SHARED_PREFIX = 'x'.repeat(100);

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
    // Empty ones (a run of ties by id), and every 11th in a run whose order is not the ids'.
    description: i % 7 === 0 ? '' : i % 11 === 0 ? `${SHARED_PREFIX}${ROWS - i}` : `about ${i}`,
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

/** The read statements the app runs while answering `path` (its own, not the feed's). */
async function statementsOf(t: TestApp, path: string): Promise<Statement[]> {
  return (await readsOf(t, path)).statements;
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
    [...scalarFields(resource).map((field) => field.name), ...heldReferences(resource).ids]
      .filter((name) => !(PREFIXED[resource.plural] ?? []).includes(name))
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
      'user.id',
      '-user.id',
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

  const walked = [MARBLES, EMAILS, PHONE_NUMBERS].flatMap((resource) =>
    heldReferences(resource)
      .keys.flatMap((path) => [path, `-${path}`])
      .map((ordering) => [resource, ordering] as const),
  );

  it('should walk every key of a reference the record holds', () => {
    expect(walked.map(([r, o]) => `${r.plural}?ordering=${o}`)).toEqual([
      'marbles?ordering=user.login',
      'marbles?ordering=-user.login',
      'emails?ordering=user.login',
      'emails?ordering=-user.login',
      'phone_numbers?ordering=user.login',
      'phone_numbers?ordering=-user.login',
    ]);
  });

  it.each(walked.map(([r, o]) => [r.path, o, r.table] as const))(
    'should read %s?ordering=%s along indexes, in the order of the join',
    async (path, ordering, table) => {
      const descending = ordering.startsWith('-');
      const direction = descending ? 'DESC' : 'ASC';
      // Page 1, a deep page, and (on marbles, a fifth of which have no owner) the page where the
      // records without an owner end and the owned ones begin, whichever end they sort at.
      const unowned = ROWS / 5;
      const edge = Math.floor((descending ? ROWS - unowned : unowned) / 30) + 1;
      const pages = table === 'marbles' ? [1, 50, edge] : [1, 50];
      for (const page of pages) {
        const query = `ordering=${ordering}&page=${page}&page_size=30`;
        const statements = await statementsOf(t, `${path}?${query}`);
        const expected = await t.query(
          `SELECT t.id FROM ${table} t LEFT JOIN users r ON r.id = t.user_id` +
            ` ORDER BY r.login ${direction}, t.id ${direction} LIMIT 30 OFFSET ${(page - 1) * 30}`,
        );
        const { body } = await t.http().get(`${path}?${query}`).expect(200);
        expect({ query, ids: body.results.map((r: { id: number }) => r.id) }).toEqual({
          query,
          ids: expected.map((r) => Number(r.id)),
        });

        // Every statement reads its table along an index: the referenced rows along the key's,
        // each branch of the union along the foreign key's. What is sorted is only rows already
        // cut to a page: the union of the branches, and the page's rows read by id.
        const reads = statements.filter((s) => !/COUNT\(\*\)/.test(s.sql));
        const pageRead = reads.pop()!;
        expect(pageRead.sql).toMatch(/WHERE t\.\S+ IN \(\?(, \?)*\) ORDER BY/);
        for (const statement of reads) {
          const branch = /FROM \((SELECT .*?)\) b0/.exec(statement.sql);
          const scan = branch
            ? { sql: branch[1], parameters: statement.parameters!.slice(0, 1) }
            : statement;
          const { sorts, plan: steps } = await plan(t, scan);
          expect({ page, sql: scan.sql, sorts, steps }).toEqual({
            page,
            sql: scan.sql,
            sorts: false,
            steps,
          });
        }
      }
    },
    60_000,
  );

  it.each(['description', '-description'])(
    'should read /api/demo/marbles?ordering=%s along the prefix index, in the order of the text',
    async (ordering) => {
      const descending = ordering.startsWith('-');
      const direction = descending ? 'DESC' : 'ASC';
      // Where the run sharing the full prefix starts and ends, in this direction.
      const [{ n: below }] = await t.query(
        `SELECT COUNT(*) AS n FROM marbles WHERE description ${descending ? '>' : '<'} ?`,
        [SHARED_PREFIX],
      );
      const [{ n: run }] = await t.query(
        'SELECT COUNT(*) AS n FROM marbles WHERE description > ?',
        [SHARED_PREFIX],
      );
      const start = Number(below);
      const end = start + Number(run);
      // Page 1, a deep page, pages across the run's start and end, and one inside it.
      const pages = [start, end, (start + end) / 2].map(
        (at) => Math.floor(Math.min(at, ROWS - 1) / 30) + 1,
      );
      for (const page of [...new Set([1, 50, ...pages])]) {
        const query = `ordering=${ordering}&page=${page}&page_size=30`;
        const statements = await statementsOf(t, `/api/demo/marbles?${query}`);
        const expected = await t.query(
          `SELECT id FROM marbles ORDER BY description ${direction}, id ${direction}` +
            ` LIMIT 30 OFFSET ${(page - 1) * 30}`,
        );
        const { body } = await t.http().get(`/api/demo/marbles?${query}`).expect(200);
        expect({ query, ids: body.results.map((r: { id: number }) => r.id) }).toEqual({
          query,
          ids: expected.map((r) => Number(r.id)),
        });

        // The page is read along the prefix's index, unsorted; a run crossing its edges along
        // the same index (sorting that run only); then the page's rows by id.
        const reads = statements.filter((s) => !/^SELECT COUNT\(\*\) AS n FROM \S+ t$/.test(s.sql));
        const pageRead = reads.pop()!;
        expect(pageRead.sql).toMatch(/WHERE t\.\S+ IN \(\?(, \?)*\) ORDER BY/);
        const [scan, ...runs] = reads;
        const scanned = await plan(t, scan);
        expect({ page, sorts: scanned.sorts, steps: scanned.plan }).toEqual({
          page,
          sorts: false,
          steps: scanned.plan,
        });
        for (const statement of runs) {
          const { plan: steps } = await plan(t, statement);
          expect({ page, sql: statement.sql, steps }).toEqual({
            page,
            sql: statement.sql,
            steps: expect.stringContaining('idx_marbles_description_key'),
          });
        }
      }
    },
    60_000,
  );
});

/** The paths of the references a record holds the id of: their ids, and their other keys. */
function heldReferences(resource: typeof MARBLES) {
  const held = resource.fields.flatMap((f) =>
    f.kind === 'reference' && f.targetColumn === 'id' ? [f] : [],
  );
  return {
    ids: held.map((f) => `${f.name}.id`),
    keys: held.flatMap((f) =>
      f.fields.filter((sub) => sub.key).map((sub) => `${f.name}.${sub.name}`),
    ),
  };
}
