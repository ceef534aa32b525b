import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../../../src/database/data-source-options';
import { openDatabase } from '../../../../src/database/migrate';
import { EMAILS } from '../../../../src/emails/emails.resource';
import { MARBLES } from '../../../../src/marbles/marbles.resource';
import { FieldErrors, Problem, RecordError } from '../../../../src/rest/core/errors';
import { ResourceDefinition } from '../../../../src/rest/core/resource';
import { TypeOrmDatabase } from '../../../../src/rest/db/typeorm-database';
import { Row, SqlDatabase, Tx } from '../../../../src/rest/db/sql-database';
import { RecordQuery } from '../../../../src/rest/sql/record-query';
import { BULK_LIMIT, RecordWriter } from '../../../../src/rest/sql/record-writer';

/** The database, except that the `failAt`-th statement (from 1) starting with `prefix` fails. */
function failing(inner: SqlDatabase, prefix: string, failAt: number): SqlDatabase {
  let seen = 0;
  const run =
    (tx: Tx): Tx['run'] =>
    async (sql, parameters) => {
      if (sql.startsWith(prefix) && ++seen === failAt) throw new Error('disk on fire');
      return tx.run(sql, parameters);
    };
  return {
    dialect: inner.dialect,
    quote: (name) => inner.quote(name),
    query: (sql, parameters) => inner.query(sql, parameters),
    transaction: (work) =>
      inner.transaction((tx) =>
        work({
          run: run(tx),
          afterCommit: (c) => tx.afterCommit(c),
          withCommit: (sql, parameters) => tx.withCommit(sql, parameters),
        }),
      ),
    write: (sql, parameters) => inner.write(sql, parameters),
    unitOfWork: (work) => inner.unitOfWork(work),
  };
}

const NOW = new Date('2024-05-01T12:00:00.000Z');
const VALIDATION_FAILED = 'Validation failed; nothing was saved.';
const ITEMS_INVALID = 'Some items are invalid; nothing was saved.';
const BULK_CREATE_SHAPE = 'Bulk create requires an array of objects as input.';
const BULK_UPDATE_SHAPE = 'Bulk update requires an array of objects, each with the id of a record.';
const BULK_DESTROY_SHAPE = 'Bulk destroy requires an array of primary keys as input.';

type Bulk = 'bulkCreate' | 'updateAll' | 'destroyAll';

/** Freezes the clock at `now`; the driver's queues keep running. */
const freezeClock = (now = NOW) =>
  jest.useFakeTimers({ now, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });

/** The RecordError that `promise` rejects with, checked to be exactly as described. */
async function expectRecordError(
  promise: Promise<unknown>,
  problem: Problem,
  message: string,
  errors?: FieldErrors | (FieldErrors | null)[],
): Promise<void> {
  const error = await promise.then(
    () => new Error('expected a RecordError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RecordError);
  const { problem: p, message: m, errors: e } = error as RecordError;
  expect({ problem: p, message: m, errors: e }).toStrictEqual({ problem, message, errors });
}

describe('RecordWriter on SQLite', () => {
  let dataSource: DataSource;
  let db: SqlDatabase;

  beforeEach(async () => {
    dataSource = await openDatabase(dataSourceOptions({ type: 'sqlite', path: ':memory:' }));
    db = new TypeOrmDatabase(dataSource);
    await dataSource.query(
      "INSERT INTO users (id, login) VALUES (1, 'ann'), (2, 'bob'), (3, 'cleo')",
    );
  });

  afterEach(async () => {
    jest.useRealTimers();
    await dataSource.destroy();
  });

  function writerOf(resource: ResourceDefinition, database: SqlDatabase = db) {
    return new RecordWriter(resource, database, new RecordQuery(resource, database));
  }

  const stored = (table: string): Promise<Row[]> =>
    dataSource.query(`SELECT * FROM "${table}" ORDER BY id`);

  async function count(table: string): Promise<number> {
    const [{ n }] = await dataSource.query(`SELECT COUNT(*) AS n FROM "${table}"`);
    return Number(n);
  }

  /** Marbles named after `names`, created one by one through the writer. */
  async function marbles(...names: string[]) {
    const writer = writerOf(MARBLES);
    for (const name of names) await writer.create({ name });
    return writer;
  }

  describe('create', () => {
    it('should fill in the defaults, stamp both times and return the rendered record', async () => {
      freezeClock();
      const record = await writerOf(MARBLES).create({ marble: { name: 'Opal', user_id: 2 } });
      expect(record).toStrictEqual({
        id: 1,
        name: 'Opal',
        radius_mm: 1,
        price: null,
        is_discounted: false,
        created_at: '2024-05-01T12:00:00.000Z',
        updated_at: '2024-05-01T12:00:00.000Z',
        user: { id: 2, login: 'bob' },
        description: '',
        picture: null,
      });
      expect(await stored('marbles')).toStrictEqual([
        {
          id: 1,
          name: 'Opal',
          radius_mm: 1,
          price: null,
          is_discounted: 0,
          created_at: '2024-05-01 12:00:00.000',
          updated_at: '2024-05-01 12:00:00.000',
          user_id: 2,
          description: '',
          picture: null,
          version: 1,
        },
      ]);
    });

    it('should store a decimal as its canonical text and render it so', async () => {
      const record = await writerOf(MARBLES).create({ name: 'Opal', price: '12.50' });
      expect(record.price).toBe('12.5');
      expect((await stored('marbles'))[0].price).toBe('12.5');
    });

    it('should report required, unknown and null fields together, by field', async () => {
      await expectRecordError(
        writerOf(MARBLES).create({ colour: 'red', radius_mm: null, is_discounted: 'maybe' }),
        'invalid',
        VALIDATION_FAILED,
        {
          name: ['This field is required.'],
          colour: ['Unknown field; marble has no such field.'],
          radius_mm: ['This field may not be null.'],
          is_discounted: ['Must be true or false.'],
        },
      );
      expect(await count('marbles')).toBe(0);
    });

    it('should refuse a name that is taken', async () => {
      const writer = await marbles('Opal');
      await expectRecordError(writer.create({ name: 'Opal' }), 'invalid', VALIDATION_FAILED, {
        name: ['A marble with this name already exists.'],
      });
    });

    it('should refuse a user that does not exist', async () => {
      await expectRecordError(
        writerOf(MARBLES).create({ name: 'Opal', user_id: 99 }),
        'invalid',
        VALIDATION_FAILED,
        { user_id: ['No user with id 99.'] },
      );
    });

    it('should refuse a body that is not an object', async () => {
      await expectRecordError(
        writerOf(MARBLES).create('Opal'),
        'invalid',
        'Request body must be a marble object.',
      );
    });
  });

  describe('update', () => {
    it('should change only the fields sent and move updated_at forward within one millisecond', async () => {
      freezeClock();
      const writer = await marbles('Opal');
      const first = await writer.update(1, { radius_mm: 5 });
      const second = await writer.update(1, { is_discounted: true });
      expect(first).toMatchObject({ name: 'Opal', radius_mm: 5, is_discounted: false });
      expect(second).toMatchObject({ name: 'Opal', radius_mm: 5, is_discounted: true });
      expect([first.created_at, first.updated_at, second.updated_at]).toStrictEqual([
        '2024-05-01T12:00:00.000Z',
        '2024-05-01T12:00:00.001Z',
        '2024-05-01T12:00:00.002Z',
      ]);
    });

    it('should let a record keep its own unique value', async () => {
      const writer = await marbles('Opal');
      expect((await writer.update(1, { name: 'Opal', radius_mm: 3 })).radius_mm).toBe(3);
    });

    it('should refuse the unique value of another record', async () => {
      const writer = await marbles('Opal', 'Onyx');
      await expectRecordError(writer.update(2, { name: 'Opal' }), 'invalid', VALIDATION_FAILED, {
        name: ['A marble with this name already exists.'],
      });
    });

    it('should say that a missing record is not found', async () => {
      await expectRecordError(
        writerOf(MARBLES).update(9, { radius_mm: 2 }),
        'not-found',
        'Marble 9 not found.',
      );
    });
  });

  describe('destroy', () => {
    it('should delete the record, and say it is not found the second time', async () => {
      const writer = await marbles('Opal', 'Onyx');
      await writer.destroy(1);
      expect((await stored('marbles')).map((r) => r.id)).toStrictEqual([2]);
      await expectRecordError(writer.destroy(1), 'not-found', 'Marble 1 not found.');
    });
  });

  describe('bulk create', () => {
    it('should create every item and return the records in order', async () => {
      const message = await writerOf(MARBLES).bulkCreate([
        { name: 'B' },
        { marble: { name: 'A' } },
      ]);
      expect(message.message).toBe('Bulk create successful.');
      expect(message.records?.map((r) => [r.id, r.name])).toStrictEqual([
        [1, 'B'],
        [2, 'A'],
      ]);
    });

    it('should create nothing when one item is invalid, with errors aligned to the items', async () => {
      const writer = await marbles('Taken');
      const items = [{ name: 'A' }, { name: ' ' }, { name: 'A' }, { name: 'Taken' }];
      await expectRecordError(
        writer.bulkCreate([...items, { name: 'B', user_id: 99 }]),
        'invalid-items',
        ITEMS_INVALID,
        [
          null,
          { name: ['May not be blank.'] },
          { name: ['Same as item 1 of this request.'] },
          { name: ['A marble with this name already exists.'] },
          { user_id: ['No user with id 99.'] },
        ],
      );
      expect(await count('marbles')).toBe(1);
    });
  });

  describe('update_all', () => {
    it('should update every item and return the records in the order of the ids', async () => {
      const writer = await marbles('A', 'B');
      const message = await writer.updateAll([
        { id: 2, radius_mm: 7 },
        { id: '1', is_discounted: true },
      ]);
      expect(message.message).toBe('Bulk update successful.');
      expect(message.records?.map((r) => [r.id, r.radius_mm, r.is_discounted])).toStrictEqual([
        [2, 7, false],
        [1, 1, true],
      ]);
    });
  });

  describe('destroy_all', () => {
    it('should delete the records and return them as they were', async () => {
      const writer = await marbles('A', 'B', 'C');
      const before = await writer.update(3, { radius_mm: 9 });
      const message = await writer.destroyAll([3, '1', 3]);
      expect(message.message).toBe('Bulk destroy successful.');
      expect(message.records).toStrictEqual([
        before,
        expect.objectContaining({ id: 1, name: 'A' }),
      ]);
      expect((await stored('marbles')).map((r) => r.id)).toStrictEqual([2]);
    });
  });

  describe('refused bulk requests', () => {
    const tooMany = Array.from({ length: BULK_LIMIT + 1 }, (_, i) => i + 1);
    const atMost = ' At most 1000 at a time.';
    // Each problem names the item's index.
    const badIds = (problems: string) =>
      `${BULK_UPDATE_SHAPE} Ids must be positive integers, each once: ${problems}.`;
    const missing = { id: ['Marble 9 not found.'] };
    const change = (...ids: unknown[]) => ids.map((id) => ({ id, radius_mm: 4 }));

    it.each<[Bulk, string, unknown, string, FieldErrors?]>([
      ['bulkCreate', 'an empty array', [], BULK_CREATE_SHAPE],
      ['bulkCreate', 'an object', { name: 'B' }, BULK_CREATE_SHAPE],
      ['bulkCreate', 'an array of strings', ['B'], `${BULK_CREATE_SHAPE} Item 1 is not an object.`],
      [
        'bulkCreate',
        '1001 items',
        tooMany.map((i) => ({ name: `m${i}` })),
        BULK_CREATE_SHAPE + atMost,
      ],
      ['updateAll', 'an empty array', [], BULK_UPDATE_SHAPE],
      ['updateAll', '1001 items', change(...tooMany), BULK_UPDATE_SHAPE + atMost],
      ['updateAll', 'a repeated id', change(1, 1), badIds('items 1 and 2 have the same id 1')],
      [
        'updateAll',
        'an item without an id',
        [...change(1), { name: 'X' }],
        badIds('item 2 has no id'),
      ],
      ['updateAll', 'an id of zero', change(0), badIds('item 1 has id 0')],
      ['updateAll', 'an id that is not a number', change('one'), badIds('item 1 has id "one"')],
      [
        'updateAll',
        'a missing record',
        change(1, 9),
        'No marbles with ids 9; nothing was changed.',
        missing,
      ],
      ['destroyAll', 'an empty array', [], BULK_DESTROY_SHAPE],
      [
        'destroyAll',
        'an id that is not a number',
        [1, 'x'],
        `${BULK_DESTROY_SHAPE} Ids must be positive integers: item 2 is "x".`,
      ],
      ['destroyAll', '1001 ids', tooMany, BULK_DESTROY_SHAPE + atMost],
      [
        'destroyAll',
        'a missing record',
        [1, 9],
        'No marbles with ids 9; nothing was deleted.',
        missing,
      ],
    ])('should refuse %s of %s and write nothing', async (method, _name, body, ...expected) => {
      // A rest parameter, so that jest does not take a missing `errors` for a done callback.
      const [message, errors] = expected;
      const writer = await marbles('A');
      await expectRecordError(writer[method](body), 'invalid', message, errors);
      expect(await stored('marbles')).toMatchObject([{ id: 1, name: 'A', radius_mm: 1 }]);
    });
  });

  describe('change', () => {
    const toggle = (current: Record<string, unknown>) => ({
      is_discounted: !current.is_discounted,
    });

    it('should apply N sequential toggles N times, each answering the new value', async () => {
      const writer = await marbles('Opal');
      const seen: unknown[] = [];
      for (let i = 0; i < 5; i++) seen.push((await writer.change(1, toggle)).values.is_discounted);
      expect(seen).toStrictEqual([true, false, true, false, true]);
      expect((await stored('marbles'))[0].is_discounted).toBe(1);
    });

    it('should apply concurrent toggles one after another', async () => {
      const writer = await marbles('Opal');
      const results = await Promise.all(Array.from({ length: 4 }, () => writer.change(1, toggle)));
      expect(results.map((r) => r.values.is_discounted)).toStrictEqual([true, false, true, false]);
      expect((await stored('marbles'))[0].is_discounted).toBe(0);
    });

    it('should answer the values after the change', async () => {
      const writer = await marbles('Opal');
      const { values, tag } = await writer.change(1, () => ({ price: '3.5' }));
      expect(values).toMatchObject({ id: 1, name: 'Opal', price: '3.5', is_discounted: false });
      expect(tag).toBe('"1.2"');
    });

    it('should say that a missing record is not found', async () => {
      await expectRecordError(
        writerOf(MARBLES).change(9, toggle),
        'not-found',
        'Marble 9 not found.',
      );
    });
  });

  describe('the one primary e-mail per user', () => {
    beforeEach(async () => {
      await dataSource.query(
        'INSERT INTO emails (id, email, is_primary, user_id) VALUES' +
          " (1, 'ann@example.com', 1, 1), (2, 'ann.work@example.com', 0, 1)," +
          " (3, 'bob@example.com', 1, 2)",
      );
    });

    /** [id, user_id, is_primary] of every stored e-mail. */
    const flags = async () => (await stored('emails')).map((r) => [r.id, r.user_id, r.is_primary]);

    it("should clear the user's old primary when an e-mail is made primary", async () => {
      const record = await writerOf(EMAILS).update(2, { is_primary: true });
      expect(JSON.parse(JSON.stringify(record))).toStrictEqual({
        id: 2,
        email: 'ann.work@example.com',
        is_primary: true,
        user: { id: 1, login: 'ann' },
      });
      expect(await flags()).toStrictEqual([
        [1, 1, 0],
        [2, 1, 1],
        [3, 2, 1],
      ]);
    });

    it('should clear the primary of the user a primary e-mail moves to', async () => {
      await writerOf(EMAILS).update(1, { user_id: 2 });
      expect(await flags()).toStrictEqual([
        [1, 2, 1],
        [2, 1, 0],
        [3, 2, 0],
      ]);
    });

    it('should leave exactly one primary when a bulk create has two for one user', async () => {
      await writerOf(EMAILS).bulkCreate([
        { email: 'cleo@example.com', user_id: 3, is_primary: true },
        { email: 'cleo.work@example.com', user_id: 3, is_primary: true },
      ]);
      expect((await flags()).slice(3)).toStrictEqual([
        [4, 3, 0],
        [5, 3, 1],
      ]);
    });
  });

  describe('a failed transaction', () => {
    it('should write nothing of a bulk create whose second insert fails', async () => {
      // E-mails are written one INSERT each (their primary flag is exclusive within a user).
      const writer = writerOf(EMAILS, failing(db, 'INSERT', 2));
      const body = [
        { email: 'a@x.org', is_primary: false, user_id: 1 },
        { email: 'b@x.org', is_primary: false, user_id: 1 },
      ];
      await expect(writer.bulkCreate(body)).rejects.toThrow('disk on fire');
      expect(await count('emails')).toBe(0);
    });

    it('should write a bulk create of marbles in one INSERT and answer them in order', async () => {
      await marbles('A');
      const inserts: string[] = [];
      const watched: SqlDatabase = {
        ...db,
        dialect: db.dialect,
        quote: (name) => db.quote(name),
        query: (sql, parameters) => db.query(sql, parameters),
        write: (sql, parameters) => db.write(sql, parameters),
        transaction: (work) =>
          db.transaction((tx) =>
            work({
              run: (sql, parameters) => {
                if (sql.startsWith('INSERT')) inserts.push(sql);
                return tx.run(sql, parameters);
              },
              afterCommit: (callback) => tx.afterCommit(callback),
              withCommit: (sql, parameters) => tx.withCommit(sql, parameters),
            }),
          ),
        unitOfWork: (work) => db.unitOfWork(work),
      };
      const done = await writerOf(MARBLES, watched).bulkCreate([
        { name: 'B', radius_mm: 3 },
        { name: 'C' },
        { name: 'D', price: '2.5' },
      ]);
      expect(inserts).toHaveLength(1);
      expect(done.records!.map((r) => [r.id, r.name, r.radius_mm, r.price])).toStrictEqual([
        [2, 'B', 3, null],
        [3, 'C', 1, null],
        [4, 'D', 1, '2.5'],
      ]);
    });

    it("should keep the old primary when the new one's update fails", async () => {
      await dataSource.query(
        "INSERT INTO emails (id, email, is_primary, user_id) VALUES (1, 'a@x.org', 1, 1), (2, 'b@x.org', 0, 1)",
      );
      const writer = writerOf(EMAILS, failing(db, 'UPDATE', 2));
      await expect(writer.update(2, { is_primary: true })).rejects.toThrow('disk on fire');
      expect((await stored('emails')).map((r) => r.is_primary)).toStrictEqual([1, 0]);
    });

    it('should change nothing of an update_all whose second update fails', async () => {
      await marbles('A', 'B');
      const writer = writerOf(MARBLES, failing(db, 'UPDATE', 2));
      const body = [1, 2].map((id) => ({ id, radius_mm: 8 }));
      await expect(writer.updateAll(body)).rejects.toThrow('disk on fire');
      expect((await stored('marbles')).map((r) => r.radius_mm)).toStrictEqual([1, 1]);
    });
  });
});
