import * as field from '../../../../src/rest/core/fields';
import { Filter, ListQuery, Ordering } from '../../../../src/rest/core/list-query';
import { ResourceDefinition, defineResource } from '../../../../src/rest/core/resource';
import { Dialect, Row, RunResult, SqlDatabase, Tx } from '../../../../src/rest/db/sql-database';
import { RecordQuery } from '../../../../src/rest/sql/record-query';
import { owner } from '../../../../src/users/users.table';

/**
 * Widgets: every scalar type, a searchable pair (the note unique), an owner and a to-many list of
 * tags.
 */
function widgets(tagsInIndex = true): ResourceDefinition {
  return defineResource({
    bulk: false,
    examples: { id: 1, deletable: [1], create: { note: 'A note' }, update: {} },
    path: '/widgets',
    singular: 'widget',
    plural: 'widgets',
    label: 'Widget',
    table: 'widgets',
    fields: [
      field.integer('id'),
      field.string('name', { searchable: true }),
      field.integer('size'),
      field.decimal('price', { precision: 6, scale: 2 }),
      field.boolean('active'),
      field.timestamp('created_at'),
      ...owner({ optional: true }),
      field.string('note', {
        column: 'remark',
        searchable: true,
        unique: true,
        write: { required: true },
      }),
      field.collection('tags', {
        through: 'tags_widgets',
        ownerColumn: 'widget_id',
        targetColumn: 'tag_id',
        table: 'tags',
        fields: [field.integer('id'), field.string('label')],
        inIndex: tagsInIndex,
      }),
    ],
  });
}

type Statement = { sql: string; parameters: unknown[] };

interface Canned {
  /** Rows of the page (and show) queries. */
  page?: Row[];
  /** Rows of the to-many loader. */
  many?: Row[];
  count?: unknown;
}

/** A database that records every read and answers it from canned rows. */
class RecordingDatabase extends SqlDatabase {
  readonly statements: Statement[] = [];

  constructor(
    readonly dialect: Dialect,
    private readonly canned: Canned = {},
  ) {
    super();
  }

  quote(name: string): string {
    return this.dialect === 'mysql' ? `\`${name}\`` : `"${name}"`;
  }

  async query(sql: string, parameters: unknown[] = []): Promise<Row[]> {
    this.statements.push({ sql, parameters });
    if (sql.startsWith('SELECT COUNT(*)')) return [{ n: this.canned.count ?? 0 }];
    if (sql.includes(' AS owner, ')) return this.canned.many ?? [];
    return this.canned.page ?? [];
  }

  transaction<T>(_work: (tx: Tx) => Promise<T>): Promise<T> {
    throw new Error('RecordQuery only reads');
  }

  write(): Promise<RunResult> {
    throw new Error('RecordQuery only reads');
  }

  unitOfWork<T>(_work: () => Promise<T>): Promise<T> {
    throw new Error('RecordQuery only reads');
  }

  /** The one recorded statement that starts with `prefix`. */
  only(prefix: string): Statement {
    const found = this.statements.filter((s) => s.sql.startsWith(prefix));
    expect(found).toHaveLength(1);
    return found[0];
  }
}

/** c0…c8: id, name, size, price, active, created_at, user id, user login, note. */
const STORED = [0, '', 1, null, 0, '2024-05-01 12:00:00', null, null, ''];

/** A stored widget row as the page query returns it. */
function widgetRow(id: number, overrides: Row = {}): Row {
  const row = Object.fromEntries(STORED.map((value, i) => [`c${i}`, value]));
  return { ...row, c0: id, c1: `w${id}`, ...overrides };
}

const rows = (n: number) => Array.from({ length: n }, (_, i) => widgetRow(i + 1));

const query = (parts: Partial<ListQuery> = {}): ListQuery => ({
  filters: [],
  ordering: [],
  ...parts,
});

const SQLITE_COLUMNS =
  'SELECT t."id" AS c0, t."name" AS c1, t."size" AS c2, t."price" AS c3, t."active" AS c4,' +
  ' t."created_at" AS c5, r0."id" AS c6, r0."login" AS c7, t."remark" AS c8';
const SQLITE_FROM = 'FROM "widgets" t';
const SQLITE_JOIN = ' LEFT JOIN "users" r0 ON r0."id" = t."user_id"';
const SQLITE_SELECT = `${SQLITE_COLUMNS} ${SQLITE_FROM}${SQLITE_JOIN}`;
/** The reads by id also select the version, for the record's ETag. */
const SQLITE_BY_ID = `${SQLITE_COLUMNS}, t."id" AS tag_id, t."version" AS tag_version ${SQLITE_FROM}${SQLITE_JOIN}`;
const SQLITE_COUNT = `SELECT COUNT(*) AS n ${SQLITE_FROM}`;
const SQLITE_TAGS =
  'SELECT j."widget_id" AS owner, x."id" AS c0, x."label" AS c1 FROM "tags_widgets" j' +
  ' JOIN "tags" x ON x."id" = j."tag_id" WHERE j."widget_id"';
const TAGS_ORDER = ' ORDER BY j."widget_id", x."id"';

function setup(dialect: Dialect = 'sqlite', canned: Canned = {}, tagsInIndex = true) {
  const db = new RecordingDatabase(dialect, canned);
  return { db, records: new RecordQuery(widgets(tagsInIndex), db) };
}

/** The COUNT statement of a list call with `parts`. */
async function countOf(parts: Partial<ListQuery>, dialect: Dialect = 'sqlite') {
  const { db, records } = setup(dialect);
  await records.list(query(parts), null, true);
  return db.only('SELECT COUNT(*)');
}

/** The page statement of a list call with `parts`, without a window. */
async function pageOf(parts: Partial<ListQuery>) {
  const { db, records } = setup();
  await records.list(query(parts), null, false);
  return db.only('SELECT t.');
}

const filter = (path: string, op: Filter['op'], ...values: Filter['values']): Filter => ({
  path,
  op,
  values,
});
const order = (path: string, descending = false): Ordering => ({ path, descending });

describe('RecordQuery', () => {
  describe('the page statement', () => {
    it('should select aliased columns, join the owner and page with LIMIT and OFFSET on SQLite', async () => {
      const { db, records } = setup();
      await records.list(query(), { limit: 2, offset: 0 }, false);
      expect(db.only('SELECT t.')).toStrictEqual({
        sql: `${SQLITE_SELECT} ORDER BY t."id" ASC LIMIT 2 OFFSET 0`,
        parameters: [],
      });
    });

    it.each<[string, Partial<ListQuery>, string, string, unknown[]]>([
      ['nothing', {}, '', ' ORDER BY t."id" ASC', []],
      [
        'the owner',
        {
          filters: [filter('user.login', 'eq', 'ann')],
          ordering: [order('user.login', true), order('id', true)],
        },
        `${SQLITE_JOIN} WHERE r0."login" = ?`,
        ' ORDER BY r0."login" DESC, t."id" DESC',
        ['ann'],
      ],
    ])(
      "should find a later page's ids first, joined to the %s that filters and ordering name",
      async (_name, parts, keyTail, terms, parameters) => {
        const { db, records } = setup();
        await records.list(query(parts), { limit: 2, offset: 4 }, false);
        const keys = `SELECT t."id" AS id ${SQLITE_FROM}${keyTail}${terms} LIMIT 2 OFFSET 4`;
        expect(db.only('SELECT t.')).toStrictEqual({
          sql: `${SQLITE_COLUMNS} FROM (${keys}) k JOIN "widgets" t ON t."id" = k.id${SQLITE_JOIN}${terms}`,
          parameters,
        });
      },
    );

    it('should quote with backticks on MySQL', async () => {
      const { db, records } = setup('mysql');
      await records.list(query(), { limit: 30, offset: 0 }, false);
      expect(db.only('SELECT t.').sql).toBe(
        'SELECT t.`id` AS c0, t.`name` AS c1, t.`size` AS c2, t.`price` AS c3, t.`active` AS c4,' +
          ' t.`created_at` AS c5, r0.`id` AS c6, r0.`login` AS c7, t.`remark` AS c8' +
          ' FROM `widgets` t LEFT JOIN `users` r0 ON r0.`id` = t.`user_id`' +
          ' ORDER BY t.`id` ASC LIMIT 30 OFFSET 0',
      );
    });

    it('should have no LIMIT without a window, and no COUNT unless asked', async () => {
      const { db, records } = setup();
      expect((await records.list(query(), null, false)).count).toBeUndefined();
      expect(db.statements.map((s) => s.sql)).toStrictEqual([
        `${SQLITE_SELECT} ORDER BY t."id" ASC`,
      ]);
    });

    it('should find one record by id', async () => {
      const { db, records } = setup('sqlite', { page: [widgetRow(7)] });
      expect((await records.findById(7))?.id).toBe(7);
      expect(await setup().records.findById(7)).toBeUndefined();
      expect(db.only('SELECT t.')).toStrictEqual({
        sql: `${SQLITE_BY_ID} WHERE t."id" = ?`,
        parameters: [7],
      });
    });
  });

  describe('the COUNT statement', () => {
    it('should count the root table alone when nothing is filtered', async () => {
      const { db, records } = setup('sqlite', { count: '7' });
      const result = await records.list(query(), { limit: 2, offset: 0 }, true);
      expect(result.count).toBe(7);
      expect(db.only('SELECT COUNT(*)')).toStrictEqual({ sql: SQLITE_COUNT, parameters: [] });
    });

    it('should not join for an ordering on a nested path', async () => {
      const statement = await countOf({ ordering: [order('user.login')] });
      expect(statement.sql).toBe(SQLITE_COUNT);
    });

    it('should join the owner, once, when filters name it', async () => {
      const filters = [filter('user.login', 'eq', 'ann'), filter('user.login', 'lt', 'bob')];
      expect(await countOf({ filters })).toStrictEqual({
        sql: `${SQLITE_COUNT}${SQLITE_JOIN} WHERE r0."login" = ? AND r0."login" < ?`,
        parameters: ['ann', 'bob'],
      });
    });

    it("should filter the owner's id by the record's own foreign key, without the join", async () => {
      const filters = [filter('user.id', 'gt', 2), filter('user.id', 'eq', null)];
      expect(await countOf({ filters })).toStrictEqual({
        sql: `${SQLITE_COUNT} WHERE t."user_id" > ? AND t."user_id" IS NULL`,
        parameters: [2],
      });
    });
  });

  describe('filters', () => {
    it.each<[string, Filter, string, unknown[]]>([
      ['eq', filter('size', 'eq', 3), 't."size" = ?', [3]],
      ['eq null', filter('size', 'eq', null), 't."size" IS NULL', []],
      ['in', filter('size', 'in', 1, 2), '(t."size" IN (?, ?))', [1, 2]],
      ['in with null', filter('size', 'in', 1, null), '(t."size" IN (?) OR t."size" IS NULL)', [1]],
      ['in of null alone', filter('size', 'in', null), '(t."size" IS NULL)', []],
      ['lt', filter('size', 'lt', 5), 't."size" < ?', [5]],
      ['lte', filter('size', 'lte', 5), 't."size" <= ?', [5]],
      ['gt', filter('size', 'gt', 5), 't."size" > ?', [5]],
      ['gte', filter('size', 'gte', 5), 't."size" >= ?', [5]],
      ['eq true', filter('active', 'eq', true), 't."active" = ?', [1]],
      ['eq false', filter('active', 'eq', false), 't."active" = ?', [0]],
      ['in of booleans', filter('active', 'in', true, false), '(t."active" IN (?, ?))', [1, 0]],
      [
        'gte timestamp',
        filter('created_at', 'gte', '2024-05-01 12:00:00.000'),
        't."created_at" >= ?',
        ['2024-05-01 12:00:00.000'],
      ],
      [
        'contains',
        filter('name', 'contains', 'A%b_C!d'),
        `LOWER(t."name") LIKE ? ESCAPE '!'`,
        ['%a!%b!_c!!d%'],
      ],
      ['eq on a column of another name', filter('note', 'eq', 'x'), 't."remark" = ?', ['x']],
      [
        'a decimal, cast to REAL',
        filter('price', 'gt', '4.50'),
        'CAST(t."price" AS REAL) > CAST(? AS REAL)',
        ['4.50'],
      ],
      [
        'an in-list of decimals, each cast',
        filter('price', 'in', '1.5', '2'),
        '(CAST(t."price" AS REAL) IN (CAST(? AS REAL), CAST(? AS REAL)))',
        ['1.5', '2'],
      ],
    ])('should compile %s', async (_name, f, condition, parameters) => {
      expect(await countOf({ filters: [f] })).toStrictEqual({
        sql: `${SQLITE_COUNT} WHERE ${condition}`,
        parameters,
      });
    });

    it('should compare a decimal column as it is and cast the parameter to DECIMAL on MySQL', async () => {
      expect(await countOf({ filters: [filter('price', 'lte', '9.99')] }, 'mysql')).toStrictEqual({
        sql: 'SELECT COUNT(*) AS n FROM `widgets` t WHERE t.`price` <= CAST(? AS DECIMAL(65,30))',
        parameters: ['9.99'],
      });
    });

    it('should join several filters with AND, parameters in order, the same in page and count', async () => {
      const filters = [filter('size', 'gte', 2), filter('name', 'contains', 'o')];
      const where = ` WHERE t."size" >= ? AND LOWER(t."name") LIKE ? ESCAPE '!'`;
      const { db, records } = setup();
      await records.list(query({ filters }), { limit: 5, offset: 0 }, true);
      expect(db.only('SELECT COUNT(*)')).toStrictEqual({
        sql: `${SQLITE_COUNT}${where}`,
        parameters: [2, '%o%'],
      });
      expect(db.only('SELECT t.')).toStrictEqual({
        sql: `${SQLITE_SELECT}${where} ORDER BY t."id" ASC LIMIT 5 OFFSET 0`,
        parameters: [2, '%o%'],
      });
    });
  });

  describe('ordering', () => {
    it.each<[string, Ordering[], string]>([
      ['one descending term', [order('name', true)], 't."name" DESC, t."id" DESC'],
      [
        'several terms',
        [order('size', true), order('name'), order('user.login')],
        't."size" DESC, t."name" ASC, r0."login" ASC, t."id" ASC',
      ],
      ['a decimal, cast on SQLite', [order('price')], 'CAST(t."price" AS REAL) ASC, t."id" ASC'],
      ['id alone, descending', [order('id', true)], 't."id" DESC'],
      ['id among other terms', [order('id'), order('name', true)], 't."id" ASC, t."name" DESC'],
      ['a unique required field', [order('note', true)], 't."remark" DESC'],
      [
        'a unique required field among others',
        [order('note'), order('size', true)],
        't."remark" ASC, t."size" DESC',
      ],
    ])(
      "should order by %s with an id tie-break in the last term's direction, unless a term is unique",
      async (_n, o, terms) => {
        expect((await pageOf({ ordering: o })).sql).toBe(`${SQLITE_SELECT} ORDER BY ${terms}`);
      },
    );
  });

  describe('search', () => {
    const searched = `(LOWER(t."name") LIKE ? ESCAPE '!' OR LOWER(t."remark") LIKE ? ESCAPE '!')`;

    it('should search every searchable column with one escaped pattern each', async () => {
      expect(await countOf({ search: 'Re_d 50%' })).toStrictEqual({
        sql: `${SQLITE_COUNT} WHERE ${searched}`,
        parameters: ['%re!_d 50!%%', '%re!_d 50!%%'],
      });
    });

    it('should follow the filters', async () => {
      const statement = await pageOf({ filters: [filter('size', 'eq', 1)], search: 'x' });
      expect(statement).toStrictEqual({
        sql: `${SQLITE_SELECT} WHERE t."size" = ? AND ${searched} ORDER BY t."id" ASC`,
        parameters: [1, '%x%', '%x%'],
      });
    });
  });

  describe('the to-many loader', () => {
    const many = [
      { owner: 3, c0: 11, c1: 'blue' },
      { owner: '1', c0: 10, c1: 'red' },
      { owner: 1, c0: 12, c1: 'green' },
    ];
    const [red, green, blue] = [
      { id: 10, label: 'red' },
      { id: 12, label: 'green' },
      { id: 11, label: 'blue' },
    ];

    it("should load the tags of the whole page in one query over the page's ids", async () => {
      const { db, records } = setup('sqlite', { page: rows(3), many });
      const { records: page } = await records.list(query(), { limit: 3, offset: 0 }, false);
      expect(db.only('SELECT j.')).toStrictEqual({
        sql: `${SQLITE_TAGS} IN (?, ?, ?)${TAGS_ORDER}`,
        parameters: [1, 2, 3],
      });
      expect(page.map((r) => r.tags)).toStrictEqual([[red, green], [], [blue]]);
    });

    it('should give [] in an index, without a query, when the relation is not in the index', async () => {
      const { db, records } = setup('sqlite', { page: rows(2), many }, false);
      const { records: page } = await records.list(query(), null, false);
      expect(page.map((r) => r.tags)).toStrictEqual([[], []]);
      expect(db.statements.map((s) => s.sql.slice(0, 9))).toStrictEqual(['SELECT t.']);
    });

    it('should still load the relation for one record when it is not in the index', async () => {
      const { db, records } = setup('sqlite', { page: [widgetRow(1)], many }, false);
      const record = await records.findById(1);
      expect(record?.tags).toStrictEqual([red, green]);
      expect(db.only('SELECT j.').parameters).toStrictEqual([1]);
    });

    it.each([2, 40])(
      'should run the same number of statements for a page of %i rows',
      async (n) => {
        const { db, records } = setup('sqlite', { page: rows(n), count: n });
        await records.list(query(), { limit: n, offset: 0 }, true);
        expect(db.statements).toHaveLength(3);
        expect(db.only('SELECT j.').parameters).toHaveLength(n);
      },
    );
  });

  describe('row mapping', () => {
    it('should map each type to its API form and nest the owner', async () => {
      const row = widgetRow(5, {
        c0: '5',
        c2: '12',
        c3: '4.00',
        c4: 1,
        c5: '2024-05-01 12:00:00.5',
        c6: 2,
        c7: 'ann',
        c8: 'round',
      });
      const { records } = setup('sqlite', { page: [row] });
      expect(await records.findById(5)).toStrictEqual({
        id: 5,
        name: 'w5',
        size: 12,
        price: '4.0',
        active: true,
        created_at: '2024-05-01T12:00:00.500Z',
        user: { id: 2, login: 'ann' },
        note: 'round',
        tags: [],
      });
    });

    const ALIASES: Record<string, string> = {
      size: 'c2',
      price: 'c3',
      active: 'c4',
      created_at: 'c5',
    };

    it.each<[string, unknown, unknown]>([
      ['active', 0, false],
      ['active', 1, true],
      ['active', true, true],
      ['price', '9.230', '9.23'],
      ['price', '4000', '4000.0'],
      ['size', '42', 42],
      ['size', null, null],
      ['active', null, null],
      ['created_at', '2024-05-01 12:00:00', '2024-05-01T12:00:00.000Z'],
    ])('should read a stored %s of %p as %p', async (key, stored, value) => {
      const { records } = setup('sqlite', { page: [widgetRow(1, { [ALIASES[key]]: stored })] });
      expect((await records.findById(1))?.[key]).toStrictEqual(value);
    });

    it('should leave a missing owner out of the record', async () => {
      const { records } = setup('sqlite', { page: [widgetRow(1)] });
      const record = await records.findById(1);
      expect(record?.user).toBeUndefined();
      expect(Object.keys(JSON.parse(JSON.stringify(record)))).not.toContain('user');
    });
  });

  describe('findByIds', () => {
    it('should keep the order of the ids and leave out the missing ones', async () => {
      const { db, records } = setup('sqlite', { page: [widgetRow(1), widgetRow(3)] });
      const found = await records.findByIds([3, 9, 1]);
      expect(found.map((r) => r.id)).toStrictEqual([3, 1]);
      expect(db.only('SELECT t.')).toStrictEqual({
        sql: `${SQLITE_BY_ID} WHERE t."id" IN (?, ?, ?)`,
        parameters: [3, 9, 1],
      });
      expect(db.only('SELECT j.').parameters).toStrictEqual([1, 3]);
    });

    it('should not query for no ids', async () => {
      const { db, records } = setup();
      expect(await records.findByIds([])).toStrictEqual([]);
      expect(db.statements).toHaveLength(0);
    });
  });
});
