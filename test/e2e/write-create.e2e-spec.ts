/**
 * Create on the four collections (CONTRACT §3, §4): 201 with the record and an absolute Location,
 * bare and wrapped bodies in JSON and XML, coercion of numeric strings and boolean spellings,
 * defaults, read-only fields ignored, unknown fields rejected, and every validation rule, with
 * every invalid field reported at once. Each write is checked against the stored rows.
 */
import { startApp, TestApp } from './harness';
import {
  ACTION,
  ANN,
  BOB,
  CLEO,
  COMEDY,
  DRAMA,
  VALIDATION_FAILED,
  UNKNOWN_MARBLE_FIELD,
  dbTime,
  expectError,
  expectJson,
  expectLocation,
  expectNoLeak,
  expectStampedWithin,
  expectXml,
  freshTables,
  links,
  marbleRow,
  movieRow,
  seedGenres,
  seedUsers,
  stored,
  xmlDocument,
} from './write-helpers';

const MARBLE_FIELDS = [
  'id',
  'name',
  'radius_mm',
  'price',
  'is_discounted',
  'created_at',
  'updated_at',
  'user',
  'description',
  'picture',
];

describe('write: create', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  beforeEach(async () => {
    await freshTables(t);
    await seedUsers(t);
    await seedGenres(t);
  });

  /** POSTs `body` as JSON and returns the response and the time window around it. */
  async function post(path: string, body: unknown) {
    const before = Date.now();
    const res = await t
      .http()
      .post(path)
      .send(body as object);
    return { res, before, after: Date.now() };
  }

  /** POSTs an XML document. */
  async function postXml(path: string, xml: string, type = 'application/xml') {
    const before = Date.now();
    const res = await t.http().post(path).set('Content-Type', type).send(xml);
    return { res, before, after: Date.now() };
  }

  describe('marbles', () => {
    const PATH = '/api/demo/marbles';

    /** The stored row of a marble created by `res`, with the server's timestamps. */
    function storedMarble(res: { body: Record<string, unknown> }, row: Record<string, unknown>) {
      return {
        ...marbleRow(res.body.id as number, res.body.name as string),
        radius_mm: 1,
        price: null,
        created_at: dbTime(res.body.created_at as string),
        updated_at: dbTime(res.body.updated_at as string),
        ...row,
      };
    }

    it('should create a marble from a bare JSON object with 201, the record and an absolute Location', async () => {
      const { res, before, after } = await post(PATH, {
        name: 'Amber Swirl',
        radius_mm: 12,
        price: '9.23',
        is_discounted: true,
        user_id: 1,
        description: 'A warm swirl',
      });

      expectJson(res, 201);
      expectLocation(res, '/api/demo/marbles/1');
      expect(res.body).toEqual({
        id: 1,
        name: 'Amber Swirl',
        radius_mm: 12,
        price: '9.23',
        is_discounted: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        user: ANN,
        description: 'A warm swirl',
        picture: null,
      });
      expect(Object.keys(res.body)).toEqual(MARBLE_FIELDS);
      expectStampedWithin(res.body.created_at, before, after);
      expectStampedWithin(res.body.updated_at, before, after);
      expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(
        Date.parse(res.body.created_at),
      );
      expect(await stored(t, 'marbles')).toEqual([
        storedMarble(res, {
          name: 'Amber Swirl',
          radius_mm: 12,
          price: '9.23',
          is_discounted: true,
          user_id: 1,
          description: 'A warm swirl',
        }),
      ]);
    });

    it('should show the created marble at its Location', async () => {
      const { res } = await post(PATH, { name: 'Onyx', price: '4' });
      expect(res.status).toBe(201);
      const path = new URL(res.headers.location).pathname;
      const shown = await t.http().get(path);
      expectJson(shown, 200);
      expect(shown.body).toEqual(res.body);
      expect((await stored(t, 'marbles')).map((r) => [r.id, r.name, r.price])).toEqual([
        [1, 'Onyx', '4.0'],
      ]);
    });

    it('should accept the record wrapped in its singular name', async () => {
      const { res } = await post(PATH, { marble: { name: 'Wrapped', radius_mm: 5 } });

      expectJson(res, 201);
      expectLocation(res, '/api/demo/marbles/1');
      expect(res.body).toEqual({
        id: 1,
        name: 'Wrapped',
        radius_mm: 5,
        price: null,
        is_discounted: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        description: '',
        picture: null,
      });
      expect(await stored(t, 'marbles')).toEqual([
        storedMarble(res, { name: 'Wrapped', radius_mm: 5 }),
      ]);
    });

    it('should accept a bare XML body with typed and nil elements', async () => {
      const { res } = await postXml(
        PATH,
        '<marble><name>x</name><radius-mm type="integer">3</radius-mm><price nil="true"/></marble>',
      );

      expectJson(res, 201);
      expectLocation(res, '/api/demo/marbles/1');
      expect(res.body).toEqual({
        id: 1,
        name: 'x',
        radius_mm: 3,
        price: null,
        is_discounted: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        description: '',
        picture: null,
      });
      expect(await stored(t, 'marbles')).toEqual([storedMarble(res, { name: 'x', radius_mm: 3 })]);
    });

    it('should accept an XML body wrapped in <hash><marble>, sent as text/xml', async () => {
      const { res } = await postXml(
        PATH,
        '<?xml version="1.0" encoding="UTF-8"?>\n<hash><marble><name>Big &amp; &lt;bold&gt;</name>' +
          '<radius-mm type="integer">25</radius-mm><price type="decimal">4000.50</price>' +
          '<is-discounted type="boolean">true</is-discounted><user-id type="integer">2</user-id>' +
          '<description>Tiger "eye"</description></marble></hash>',
        'text/xml',
      );

      expectJson(res, 201);
      expect(res.body).toEqual({
        id: 1,
        name: 'Big & <bold>',
        radius_mm: 25,
        price: '4000.5',
        is_discounted: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        user: BOB,
        description: 'Tiger "eye"',
        picture: null,
      });
      expect(await stored(t, 'marbles')).toEqual([
        storedMarble(res, {
          name: 'Big & <bold>',
          radius_mm: 25,
          price: '4000.5',
          is_discounted: true,
          user_id: 2,
          description: 'Tiger "eye"',
        }),
      ]);
    });

    it('should answer a create in XML when XML is negotiated, with the Location header', async () => {
      const res = await t
        .http()
        .post(PATH)
        .set('Accept', 'application/xml')
        .send({ name: 'Ruby', radius_mm: 7, price: '1.50', user_id: 3 });

      expectXml(res, 201);
      expectLocation(res, '/api/demo/marbles/1');
      const stamps = res.text.match(/<(created|updated)-at type="dateTime">([^<]*)</g) ?? [];
      expect(stamps).toHaveLength(2);
      for (const stamp of stamps) expect(stamp).toMatch(/>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<$/);
      expect(res.text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'STAMP')).toBe(
        xmlDocument(
          '<hash><id type="integer">1</id><name>Ruby</name><radius-mm type="integer">7</radius-mm>' +
            '<price type="decimal">1.5</price><is-discounted type="boolean">false</is-discounted>' +
            '<created-at type="dateTime">STAMP</created-at><updated-at type="dateTime">STAMP</updated-at>' +
            '<user><id type="integer">3</id><login>cleo</login></user><description></description>' +
            '<picture nil="true"/></hash>',
        ),
      );
      expect(await stored(t, 'marbles')).toHaveLength(1);
    });

    it('should answer a create in XML for the .xml suffix, with the Location of the record', async () => {
      const res = await t
        .http()
        .post(`${PATH}.xml`)
        .set('Content-Type', 'application/xml')
        .send('<marble><name>Suffix</name></marble>');

      expectXml(res, 201);
      expectLocation(res, '/api/demo/marbles/1');
      expect(res.text).toContain('<id type="integer">1</id><name>Suffix</name>');
      expect((await stored(t, 'marbles')).map((r) => [r.id, r.name])).toEqual([[1, 'Suffix']]);
    });

    it('should coerce numeric strings and numbers to the field types', async () => {
      const { res } = await post(PATH, { name: 'Coerced', radius_mm: '3', price: 7, user_id: '2' });

      expectJson(res, 201);
      expect(res.body).toEqual({
        id: 1,
        name: 'Coerced',
        radius_mm: 3,
        price: '7.0',
        is_discounted: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        user: BOB,
        description: '',
        picture: null,
      });
      expect(await stored(t, 'marbles')).toEqual([
        storedMarble(res, { name: 'Coerced', radius_mm: 3, price: '7.0', user_id: 2 }),
      ]);
    });

    it('should store prices in canonical form from decimal strings with trailing zeros', async () => {
      const { res } = await post(PATH, { name: 'Canonical', price: '12.50' });
      expectJson(res, 201);
      expect(res.body.price).toBe('12.5');
      expect((await stored(t, 'marbles'))[0].price).toBe('12.5');
    });

    it('should accept the boolean spellings true/"true"/1/"1" and false/"false"/0/"0"', async () => {
      const spellings: [unknown, boolean][] = [
        [true, true],
        ['true', true],
        [1, true],
        ['1', true],
        [false, false],
        ['false', false],
        [0, false],
        ['0', false],
      ];
      for (const [i, [sent, expected]] of spellings.entries()) {
        const { res } = await post(PATH, { name: `Flag ${i}`, is_discounted: sent });
        expectJson(res, 201);
        expect({ sent, flag: res.body.is_discounted }).toEqual({ sent, flag: expected });
      }
      const rows = await stored(t, 'marbles');
      expect(rows.map((r) => [r.name, r.is_discounted])).toEqual(
        spellings.map(([, expected], i) => [`Flag ${i}`, expected]),
      );
    });

    it('should accept an untyped XML boolean spelled 1', async () => {
      const { res } = await postXml(
        PATH,
        '<marble><name>One</name><is-discounted>1</is-discounted></marble>',
      );
      expectJson(res, 201);
      expect(res.body.is_discounted).toBe(true);
      expect((await stored(t, 'marbles'))[0].is_discounted).toBe(true);
    });

    it('should apply the defaults when only the name is sent', async () => {
      const { res } = await post(PATH, { name: 'Plain' });

      expectJson(res, 201);
      expect(res.body).toEqual({
        id: 1,
        name: 'Plain',
        radius_mm: 1,
        price: null,
        is_discounted: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        description: '',
        picture: null,
      });
      expect(await stored(t, 'marbles')).toEqual([
        storedMarble(res, {
          name: 'Plain',
          radius_mm: 1,
          price: null,
          is_discounted: false,
          user_id: null,
        }),
      ]);
    });

    it('should ignore the read-only fields of a record sent back', async () => {
      await t.insert('marbles', [
        marbleRow(7, 'Original', { user_id: 2, picture: 'original.png' }),
      ]);
      const read = (await t.http().get(`${PATH}/7`)).body;
      const { res, before, after } = await post(PATH, {
        ...read,
        name: 'Copy',
        description: 'copied',
      });

      expectJson(res, 201);
      expectLocation(res, '/api/demo/marbles/8');
      expect(res.body).toEqual({
        id: 8,
        name: 'Copy',
        radius_mm: 10,
        price: '2.5',
        is_discounted: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        description: 'copied',
        picture: null,
      });
      expectStampedWithin(res.body.created_at, before, after);
      const rows = await stored(t, 'marbles');
      expect(rows[1]).toEqual(
        storedMarble(res, {
          name: 'Copy',
          radius_mm: 10,
          price: '2.5',
          user_id: null,
          description: 'copied',
        }),
      );
      expect(rows).toHaveLength(2);
    });

    it('should reject an unknown field with 400 naming it and store nothing', async () => {
      const { res } = await post(PATH, { name: 'Colourful', colour: 'red' });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: { colour: [UNKNOWN_MARBLE_FIELD] },
      });
      expect(await stored(t, 'marbles')).toEqual([]);
    });

    it('should reject an unknown XML element with 400 naming it', async () => {
      const { res } = await postXml(
        PATH,
        '<marble><name>Colourful</name><colour-code>red</colour-code></marble>',
      );
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: { colour_code: [UNKNOWN_MARBLE_FIELD] },
      });
      expect(await stored(t, 'marbles')).toEqual([]);
    });

    it('should list every invalid field at once, uniqueness and a missing user with format errors', async () => {
      await t.insert('marbles', [marbleRow(1, 'Taken')]);
      const { res } = await post(PATH, {
        name: 'Taken',
        radius_mm: 0,
        price: '1.234',
        is_discounted: 'maybe',
        user_id: 99,
        description: 5,
        colour: 'red',
      });

      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: {
          name: ['A marble with this name already exists.'],
          radius_mm: ['Must be at least 1.'],
          price: ['Must be a decimal number with at most 2 decimal places.'],
          is_discounted: ['Must be true or false.'],
          user_id: ['No user with id 99.'],
          description: expect.arrayContaining(['Must be a string.']),
          colour: [UNKNOWN_MARBLE_FIELD],
        },
      });
      expect(await stored(t, 'marbles')).toEqual([marbleRow(1, 'Taken', { is_discounted: false })]);
    });

    it('should require the name', async () => {
      const { res } = await post(PATH, { radius_mm: 2 });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: { name: ['This field is required.'] },
      });
      const empty = await post(PATH, {});
      expectError(empty.res, 400, {
        message: VALIDATION_FAILED,
        errors: { name: ['This field is required.'] },
      });
      expect(await stored(t, 'marbles')).toEqual([]);
    });

    it('should accept null only for the nullable price and user_id', async () => {
      const { res } = await post(PATH, {
        name: null,
        radius_mm: null,
        is_discounted: null,
        description: null,
        price: null,
        user_id: null,
      });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: {
          name: ['This field may not be null.'],
          radius_mm: ['This field may not be null.'],
          is_discounted: ['This field may not be null.'],
          description: ['This field may not be null.'],
        },
      });
      expect(await stored(t, 'marbles')).toEqual([]);

      const ok = await post(PATH, { name: 'Nulls', price: null, user_id: null });
      expectJson(ok.res, 201);
      expect(await stored(t, 'marbles')).toEqual([storedMarble(ok.res, { name: 'Nulls' })]);
    });

    it('should accept a name of 255 characters and reject 256', async () => {
      const longest = 'n'.repeat(255);
      const ok = await post(PATH, { name: longest });
      expectJson(ok.res, 201);
      expect(ok.res.body.name).toBe(longest);

      const emoji = '😀'.repeat(255);
      const wide = await post(PATH, { name: emoji });
      expectJson(wide.res, 201);
      expect(wide.res.body.name).toBe(emoji);

      const { res } = await post(PATH, { name: 'n'.repeat(256) });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: { name: ['Must be at most 255 characters long.'] },
      });
      expect((await stored(t, 'marbles')).map((r) => r.name)).toEqual([longest, emoji]);
    });

    it('should reject a blank name', async () => {
      for (const name of ['', '   ', '\t\n']) {
        const { res } = await post(PATH, { name });
        expectError(res, 400, {
          message: VALIDATION_FAILED,
          errors: { name: ['May not be blank.'] },
        });
      }
      expect(await stored(t, 'marbles')).toEqual([]);
    });

    it('should require radius_mm to be an integer of at least 1', async () => {
      const ok = await post(PATH, { name: 'Smallest', radius_mm: 1 });
      expectJson(ok.res, 201);
      expect(ok.res.body.radius_mm).toBe(1);

      for (const radius of [0, -5]) {
        const { res } = await post(PATH, { name: 'Too small', radius_mm: radius });
        expectError(res, 400, {
          message: VALIDATION_FAILED,
          errors: { radius_mm: ['Must be at least 1.'] },
        });
      }
      const fraction = await post(PATH, { name: 'Fraction', radius_mm: 2.5 });
      expectError(fraction.res, 400, {
        message: VALIDATION_FAILED,
        errors: { radius_mm: ['Must be an integer.'] },
      });
      const word = await post(PATH, { name: 'Word', radius_mm: 'three' });
      expectError(word.res, 400, {
        message: VALIDATION_FAILED,
        errors: { radius_mm: expect.arrayContaining(['Must be an integer.']) },
      });
      expect((await stored(t, 'marbles')).map((r) => r.name)).toEqual(['Smallest']);
    });

    it('should accept prices above 0 up to 9999.99 with at most 2 decimals', async () => {
      for (const [i, [sent, shown]] of [
        ['0.01', '0.01'],
        ['9999.99', '9999.99'],
        ['0.5', '0.5'],
        [12, '12.0'],
      ].entries()) {
        const { res } = await post(PATH, { name: `Priced ${i}`, price: sent });
        expectJson(res, 201);
        expect(res.body.price).toBe(shown);
      }
      expect((await stored(t, 'marbles')).map((r) => r.price)).toEqual([
        '0.01',
        '9999.99',
        '0.5',
        '12.0',
      ]);
    });

    it('should reject prices of 0 or less and above 9999.99', async () => {
      for (const [sent, shown] of [
        ['0', '0.0'],
        ['0.00', '0.0'],
        ['-1', '-1.0'],
        ['10000', '10000.0'],
        [10000, '10000.0'],
      ]) {
        const { res } = await post(PATH, { name: 'Bad price', price: sent });
        expectError(res, 400, {
          message: VALIDATION_FAILED,
          errors: { price: [`Must be greater than 0 and at most 9999.99; got ${shown}.`] },
        });
      }
      expect(await stored(t, 'marbles')).toEqual([]);
    });

    it('should reject prices with more than 2 decimals', async () => {
      for (const price of ['1.234', '0.001', 1.005]) {
        const { res } = await post(PATH, { name: 'Precise', price });
        expectError(res, 400, {
          message: VALIDATION_FAILED,
          errors: { price: ['Must be a decimal number with at most 2 decimal places.'] },
        });
      }
      expect(await stored(t, 'marbles')).toEqual([]);
    });

    it('should reject a price that is not a decimal number with 400, not 500', async () => {
      const prices: unknown[] = ['abc', '1e3', 1e-7, '', '12,50', true];
      const answers = [];
      for (const price of prices) {
        const { res } = await post(PATH, { name: 'Not a number', price });
        expectNoLeak(res);
        answers.push({ price, status: res.status, body: res.body });
      }
      expect(answers).toEqual(
        prices.map((price) => ({
          price,
          status: 400,
          body: {
            message: VALIDATION_FAILED,
            errors: {
              price: expect.arrayContaining([
                'Must be a decimal number with at most 2 decimal places.',
              ]),
            },
          },
        })),
      );
      expect(await stored(t, 'marbles')).toEqual([]);
    });

    it('should reject a user_id of a user that does not exist', async () => {
      const { res } = await post(PATH, { name: 'Orphan', user_id: 99 });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: { user_id: ['No user with id 99.'] },
      });
      const zero = await post(PATH, { name: 'Orphan', user_id: 0 });
      expectError(zero.res, 400, {
        message: VALIDATION_FAILED,
        errors: { user_id: ['Must be at least 1.'] },
      });
      expect(await stored(t, 'marbles')).toEqual([]);
    });

    it('should store a long description exactly or refuse it with 400 naming it, never 500', async () => {
      const description = 'd'.repeat(70_000);
      const { res } = await post(PATH, { name: 'Verbose', description });
      expect([201, 400]).toContain(res.status);
      if (res.status === 201) {
        expect(res.body.description).toBe(description);
        expect((await stored(t, 'marbles'))[0].description).toBe(description);
      } else {
        expectError(res, 400, {
          message: VALIDATION_FAILED,
          errors: { description: [expect.any(String)] },
        });
        expect(await stored(t, 'marbles')).toEqual([]);
      }
    });
  });

  describe('emails', () => {
    const PATH = '/api/demo/emails';

    it('should create an e-mail from a bare JSON object with 201, the record and Location', async () => {
      const { res } = await post(PATH, { email: 'ann@example.com', user_id: 1 });

      expectJson(res, 201);
      expectLocation(res, '/api/demo/emails/1');
      expect(res.body).toEqual({ id: 1, email: 'ann@example.com', is_primary: false, user: ANN });
      expect(Object.keys(res.body)).toEqual(['id', 'email', 'is_primary', 'user']);
      expect(await stored(t, 'emails')).toEqual([
        { id: 1, email: 'ann@example.com', is_primary: false, user_id: 1 },
      ]);
    });

    it('should accept a wrapped JSON body with string spellings of boolean and id', async () => {
      const { res } = await post(PATH, {
        email: { email: 'bob@example.org', is_primary: 'true', user_id: '2' },
      });

      expectJson(res, 201);
      expectLocation(res, '/api/demo/emails/1');
      expect(res.body).toEqual({ id: 1, email: 'bob@example.org', is_primary: true, user: BOB });
      expect(await stored(t, 'emails')).toEqual([
        { id: 1, email: 'bob@example.org', is_primary: true, user_id: 2 },
      ]);
    });

    it('should accept bare and wrapped XML bodies', async () => {
      const bare = await postXml(
        PATH,
        '<email><email>cleo@example.net</email><is-primary type="boolean">true</is-primary>' +
          '<user-id type="integer">3</user-id></email>',
      );
      expectJson(bare.res, 201);
      expect(bare.res.body).toEqual({
        id: 1,
        email: 'cleo@example.net',
        is_primary: true,
        user: CLEO,
      });

      const wrapped = await postXml(
        PATH,
        '<hash><email><email>cleo.work@example.net</email><user-id>3</user-id></email></hash>',
      );
      expectJson(wrapped.res, 201);
      expectLocation(wrapped.res, '/api/demo/emails/2');
      expect(wrapped.res.body).toEqual({
        id: 2,
        email: 'cleo.work@example.net',
        is_primary: false,
        user: CLEO,
      });

      expect(await stored(t, 'emails')).toEqual([
        { id: 1, email: 'cleo@example.net', is_primary: true, user_id: 3 },
        { id: 2, email: 'cleo.work@example.net', is_primary: false, user_id: 3 },
      ]);
    });

    it('should ignore id, user and billing_user sent back', async () => {
      const { res } = await post(PATH, {
        id: 40,
        email: 'echo@example.com',
        is_primary: false,
        user: BOB,
        billing_user: CLEO,
        user_id: 1,
      });

      expectJson(res, 201);
      expectLocation(res, '/api/demo/emails/1');
      expect(res.body).toEqual({ id: 1, email: 'echo@example.com', is_primary: false, user: ANN });
      expect(await stored(t, 'emails')).toEqual([
        { id: 1, email: 'echo@example.com', is_primary: false, user_id: 1 },
      ]);
      expect((await t.rows('users')).map((u) => u.email_id)).toEqual([null, null, null]);
    });

    it('should require email and user_id', async () => {
      const { res } = await post(PATH, { is_primary: true });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: { email: ['This field is required.'], user_id: ['This field is required.'] },
      });
      const nulls = await post(PATH, { email: null, user_id: null, is_primary: null });
      expectError(nulls.res, 400, {
        message: VALIDATION_FAILED,
        errors: {
          email: ['This field may not be null.'],
          user_id: ['This field may not be null.'],
          is_primary: ['This field may not be null.'],
        },
      });
      expect(await stored(t, 'emails')).toEqual([]);
    });

    it('should list a bad address, a missing user and a bad flag at once', async () => {
      const { res } = await post(PATH, {
        email: 'not-an-email',
        user_id: 99,
        is_primary: 'perhaps',
      });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: {
          email: ['Must be a valid e-mail address.'],
          user_id: ['No user with id 99.'],
          is_primary: ['Must be true or false.'],
        },
      });
      expect(await stored(t, 'emails')).toEqual([]);
    });

    it('should report a taken address together with a missing user', async () => {
      await t.insert('emails', [
        { id: 1, email: 'ann@example.com', is_primary: false, user_id: 1 },
      ]);
      const { res } = await post(PATH, { email: 'ann@example.com', user_id: 99, address: 'x' });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: {
          email: ['An email with this email already exists.'],
          user_id: ['No user with id 99.'],
          address: ['Unknown field; email has no such field.'],
        },
      });
      expect(await stored(t, 'emails')).toEqual([
        { id: 1, email: 'ann@example.com', is_primary: false, user_id: 1 },
      ]);
    });

    it('should accept a long valid address and reject one over 255 characters', async () => {
      // 254 characters is the longest address RFC 5321 allows, so the longest one that can pass.
      const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.com`;
      const longest = `${'l'.repeat(58)}@${domain}`;
      const tooLong = `${'l'.repeat(60)}@${domain}`;
      expect([longest.length, tooLong.length]).toEqual([254, 256]);

      const ok = await post(PATH, { email: longest, user_id: 1 });
      expectJson(ok.res, 201);
      expect(ok.res.body.email).toBe(longest);
      const { res } = await post(PATH, { email: tooLong, user_id: 1 });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: { email: expect.arrayContaining(['Must be at most 255 characters long.']) },
      });
      expect((await stored(t, 'emails')).map((e) => e.email)).toEqual([longest]);
    });
  });

  describe('phone numbers', () => {
    const PATH = '/api/demo/phone_numbers';

    it('should keep the number exactly as sent', async () => {
      const numbers = [
        ' +1 (555) 010-0000 ext. 7 ',
        '555.010.0001',
        '(555) 010 0002',
        '+44 20 7946 0958',
        '555-0100',
        '555-0100 ',
      ];
      for (const [i, number] of numbers.entries()) {
        const { res } = await post(PATH, { number, user_id: 1 });
        expectJson(res, 201);
        expectLocation(res, `/api/demo/phone_numbers/${i + 1}`);
        expect(res.body).toEqual({ id: i + 1, number, user: ANN });
      }
      expect(await stored(t, 'phone_numbers')).toEqual(
        numbers.map((number, i) => ({ id: i + 1, number, user_id: 1 })),
      );
    });

    it('should accept wrapped JSON and bare and wrapped XML bodies', async () => {
      const wrapped = await post(PATH, { phone_number: { number: '555-0101', user_id: '2' } });
      expectJson(wrapped.res, 201);
      expect(wrapped.res.body).toEqual({ id: 1, number: '555-0101', user: BOB });

      const bare = await postXml(
        PATH,
        '<phone-number><number>(555) 0102</number><user-id type="integer">3</user-id></phone-number>',
      );
      expectJson(bare.res, 201);
      expect(bare.res.body).toEqual({ id: 2, number: '(555) 0102', user: CLEO });

      const hash = await postXml(
        PATH,
        '<hash><phone-number><number>555 0103</number><user-id>1</user-id></phone-number></hash>',
      );
      expectJson(hash.res, 201);
      expect(hash.res.body).toEqual({ id: 3, number: '555 0103', user: ANN });

      expect(await stored(t, 'phone_numbers')).toEqual([
        { id: 1, number: '555-0101', user_id: 2 },
        { id: 2, number: '(555) 0102', user_id: 3 },
        { id: 3, number: '555 0103', user_id: 1 },
      ]);
    });

    it('should reject a blank number', async () => {
      for (const number of ['', '   ', '\t']) {
        const { res } = await post(PATH, { number, user_id: 1 });
        expectError(res, 400, {
          message: VALIDATION_FAILED,
          errors: { number: ['May not be blank.'] },
        });
      }
      expect(await stored(t, 'phone_numbers')).toEqual([]);
    });

    it('should require number and user_id and list every problem at once', async () => {
      const { res } = await post(PATH, {});
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: { number: ['This field is required.'], user_id: ['This field is required.'] },
      });

      await t.insert('phone_numbers', [{ id: 1, number: '555-0100', user_id: 1 }]);
      const taken = await post(PATH, { number: '555-0100', user_id: 42, extension: '7' });
      expectError(taken.res, 400, {
        message: VALIDATION_FAILED,
        errors: {
          number: ['A phone number with this number already exists.'],
          user_id: ['No user with id 42.'],
          extension: ['Unknown field; phone_number has no such field.'],
        },
      });
      expect(await stored(t, 'phone_numbers')).toEqual([{ id: 1, number: '555-0100', user_id: 1 }]);
    });

    it('should accept a number of 255 characters and reject 256', async () => {
      const ok = await post(PATH, { number: '5'.repeat(255), user_id: 1 });
      expectJson(ok.res, 201);
      const { res } = await post(PATH, { number: '5'.repeat(256), user_id: 1 });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: { number: ['Must be at most 255 characters long.'] },
      });
      expect(await stored(t, 'phone_numbers')).toEqual([
        { id: 1, number: '5'.repeat(255), user_id: 1 },
      ]);
    });
  });

  describe('movies', () => {
    const PATH = '/api/plain/movies';

    function storedMovie(res: { body: Record<string, unknown> }, row: Record<string, unknown>) {
      return {
        ...movieRow(res.body.id as number, res.body.name as string),
        price: null,
        created_at: dbTime(res.body.created_at as string),
        updated_at: dbTime(res.body.updated_at as string),
        ...row,
      };
    }

    it('should create a movie with its genres and users, 201 and Location', async () => {
      const { res, before, after } = await post(PATH, {
        name: 'The Long Voyage',
        price: '10.50',
        main_genre_id: 2,
        genre_ids: [1, 3],
        user_ids: [2, 3],
      });

      expectJson(res, 201);
      expectLocation(res, '/api/plain/movies/1');
      expect(res.body).toEqual({
        id: 1,
        created_at: expect.any(String),
        name: 'The Long Voyage',
        price: '10.5',
        updated_at: expect.any(String),
        main_genre: DRAMA,
        genres: [ACTION, COMEDY],
        users: [BOB, CLEO],
      });
      expect(Object.keys(res.body)).toEqual([
        'id',
        'created_at',
        'name',
        'price',
        'updated_at',
        'main_genre',
        'genres',
        'users',
      ]);
      expectStampedWithin(res.body.created_at, before, after);
      expectStampedWithin(res.body.updated_at, before, after);
      expect(await stored(t, 'movies')).toEqual([
        storedMovie(res, { name: 'The Long Voyage', price: '10.5', main_genre_id: 2 }),
      ]);
      expect(await links(t, 'genres_movies')).toEqual([
        [1, 1],
        [1, 3],
      ]);
      expect(await links(t, 'movies_users')).toEqual([
        [1, 2],
        [1, 3],
      ]);
    });

    it('should accept a wrapped JSON body and an XML body with id arrays', async () => {
      const wrapped = await post(PATH, { movie: { name: 'Wrapped', genre_ids: ['2'] } });
      expectJson(wrapped.res, 201);
      expect(wrapped.res.body).toEqual({
        id: 1,
        created_at: expect.any(String),
        name: 'Wrapped',
        price: null,
        updated_at: expect.any(String),
        genres: [DRAMA],
        users: [],
      });

      const xml = await postXml(
        PATH,
        '<movie><name>Midnight Harbor</name><price type="decimal">999999.99</price>' +
          '<main-genre-id type="integer">1</main-genre-id>' +
          '<genre-ids type="array"><genre-id type="integer">1</genre-id><genre-id type="integer">2</genre-id></genre-ids>' +
          '<user-ids type="array"/></movie>',
      );
      expectJson(xml.res, 201);
      expectLocation(xml.res, '/api/plain/movies/2');
      expect(xml.res.body).toEqual({
        id: 2,
        created_at: expect.any(String),
        name: 'Midnight Harbor',
        price: '999999.99',
        updated_at: expect.any(String),
        main_genre: ACTION,
        genres: [ACTION, DRAMA],
        users: [],
      });

      expect(await stored(t, 'movies')).toEqual([
        storedMovie(wrapped.res, { name: 'Wrapped' }),
        storedMovie(xml.res, { name: 'Midnight Harbor', price: '999999.99', main_genre_id: 1 }),
      ]);
      expect(await links(t, 'genres_movies')).toEqual([
        [1, 2],
        [2, 1],
        [2, 2],
      ]);
      expect(await links(t, 'movies_users')).toEqual([]);
    });

    it('should apply defaults and ignore read-only fields sent back', async () => {
      const { res, before, after } = await post(PATH, {
        id: 70,
        name: 'Echo',
        created_at: '2000-01-01T00:00:00.000Z',
        updated_at: '2000-01-01T00:00:00.000Z',
        main_genre: ACTION,
        genres: [ACTION],
        users: [ANN],
      });

      expectJson(res, 201);
      expectLocation(res, '/api/plain/movies/1');
      expect(res.body).toEqual({
        id: 1,
        created_at: expect.any(String),
        name: 'Echo',
        price: null,
        updated_at: expect.any(String),
        genres: [],
        users: [],
      });
      expectStampedWithin(res.body.created_at, before, after);
      expect(await stored(t, 'movies')).toEqual([storedMovie(res, { name: 'Echo' })]);
      expect(await links(t, 'genres_movies')).toEqual([]);
      expect(await links(t, 'movies_users')).toEqual([]);
    });

    it('should list a taken name, missing genres and users and a bad price at once', async () => {
      await t.insert('movies', [movieRow(1, 'Taken')]);
      const { res } = await post(PATH, {
        name: 'Taken',
        price: '1000000',
        main_genre_id: 99,
        genre_ids: [1, 98],
        user_ids: [97],
        rating: 5,
      });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: {
          name: ['A movie with this name already exists.'],
          price: ['Must be greater than 0 and at most 999999.99; got 1000000.0.'],
          main_genre_id: ['No genre with id 99.'],
          genre_ids: ['No genre with id 98.'],
          user_ids: ['No user with id 97.'],
          rating: ['Unknown field; movie has no such field.'],
        },
      });
      expect(await stored(t, 'movies')).toEqual([movieRow(1, 'Taken')]);
      expect(await links(t, 'genres_movies')).toEqual([]);
    });

    it('should accept prices up to 999999.99 and reject 0, more decimals and more', async () => {
      const ok = await post(PATH, { name: 'Dear', price: '10000' });
      expectJson(ok.res, 201);
      expect(ok.res.body.price).toBe('10000.0');
      for (const [price, message] of [
        ['0', 'Must be greater than 0 and at most 999999.99; got 0.0.'],
        ['1000000.00', 'Must be greater than 0 and at most 999999.99; got 1000000.0.'],
        ['5.555', 'Must be a decimal number with at most 2 decimal places.'],
      ]) {
        const { res } = await post(PATH, { name: 'Priced', price });
        expectError(res, 400, { message: VALIDATION_FAILED, errors: { price: [message] } });
      }
      expect((await stored(t, 'movies')).map((m) => [m.name, m.price])).toEqual([
        ['Dear', '10000.0'],
      ]);
    });

    it('should require a name and lists of ids', async () => {
      const { res } = await post(PATH, { genre_ids: 1, user_ids: ['x'] });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: {
          name: ['This field is required.'],
          genre_ids: expect.arrayContaining(['Must be a list of ids.']),
          user_ids: expect.arrayContaining(['Must be a list of ids.']),
        },
      });
      expect(await stored(t, 'movies')).toEqual([]);
    });

    it('should accept a name of 255 characters and reject 256 or a blank one', async () => {
      const ok = await post(PATH, { name: 'm'.repeat(255) });
      expectJson(ok.res, 201);
      const long = await post(PATH, { name: 'm'.repeat(256) });
      expectError(long.res, 400, {
        message: VALIDATION_FAILED,
        errors: { name: ['Must be at most 255 characters long.'] },
      });
      const blank = await post(PATH, { name: ' ' });
      expectError(blank.res, 400, {
        message: VALIDATION_FAILED,
        errors: { name: ['May not be blank.'] },
      });
      expect((await stored(t, 'movies')).map((m) => m.name)).toEqual(['m'.repeat(255)]);
    });

    it('should link a genre sent twice once', async () => {
      const { res } = await post(PATH, { name: 'Twice', genre_ids: [1, 1] });
      expectJson(res, 201);
      expect(res.body.genres).toEqual([ACTION]);
      expect(await links(t, 'genres_movies')).toEqual([[1, 1]]);
    });

    it('should refuse an array: movies have no bulk create', async () => {
      const { res } = await post(PATH, [{ name: 'One' }, { name: 'Two' }]);
      expectError(res, 400, {
        message: 'Request body must be a movie object; movies have no bulk create.',
      });
      expect(await stored(t, 'movies')).toEqual([]);
    });
  });
});
