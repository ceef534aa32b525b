/**
 * Update of one record (CONTRACT §4): PUT and PATCH are both partial, 404 for a missing or
 * malformed id, `updated_at` moves forward on every update and `created_at` never does, read-only
 * fields sent back are ignored, invalid updates change nothing, and a movie's genre_ids/user_ids
 * replace its relations. Every write is checked against the stored rows.
 */
import { startApp, TestApp } from './harness';
import {
  ACTION,
  ANN,
  BOB,
  CLEO,
  COMEDY,
  DRAMA,
  T1,
  T1_ISO,
  T2,
  VALIDATION_FAILED,
  UNKNOWN_MARBLE_FIELD,
  dbTime,
  expectError,
  expectJson,
  expectStampedWithin,
  expectXml,
  freshTables,
  links,
  marbleRow,
  movieRow,
  seedGenres,
  seedUsers,
  stored,
} from './write-helpers';

type Method = 'put' | 'patch';
const METHODS: Method[] = ['put', 'patch'];

const AMBER = marbleRow(1, 'Amber', {
  radius_mm: 12,
  price: '9.23',
  user_id: 1,
  description: 'warm',
  picture: 'amber.png',
});
const COBALT = marbleRow(2, 'Cobalt', { radius_mm: 8, price: '4.0', is_discounted: true });

const AMBER_JSON = {
  id: 1,
  name: 'Amber',
  radius_mm: 12,
  price: '9.23',
  is_discounted: false,
  created_at: T1_ISO,
  updated_at: '2024-05-02T08:30:15.000Z',
  user: ANN,
  description: 'warm',
  picture: 'amber.png',
};

describe('write: update', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  beforeEach(async () => {
    await freshTables(t);
    await seedUsers(t);
    await seedGenres(t);
    await t.insert('marbles', [AMBER, COBALT]);
    await t.insert('emails', [
      { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
      { id: 2, email: 'bob@example.com', is_primary: false, user_id: 2 },
    ]);
    await t.insert('phone_numbers', [
      { id: 1, number: '555-0100', user_id: 1 },
      { id: 2, number: '555-0101', user_id: 2 },
    ]);
    await t.insert('movies', [movieRow(1, 'Voyage', { main_genre_id: 1 }), movieRow(2, 'Harbor')]);
    await t.insert('genres_movies', [
      { movie_id: 1, genre_id: 1 },
      { movie_id: 1, genre_id: 2 },
    ]);
    await t.insert('movies_users', [{ movie_id: 1, user_id: 1 }]);
  });

  async function send(method: Method, path: string, body: unknown) {
    const before = Date.now();
    const res = await t
      .http()
      [method](path)
      .send(body as object);
    return { res, before, after: Date.now() };
  }

  describe('marbles', () => {
    const PATH = '/api/demo/marbles';

    for (const method of METHODS) {
      it(`should change only the fields sent via ${method.toUpperCase()}`, async () => {
        const { res, before, after } = await send(method, `${PATH}/1`, {
          price: '5',
          radius_mm: '13',
        });

        expectJson(res, 200);
        expect(res.headers.location).toBeUndefined();
        expect(res.body).toEqual({
          ...AMBER_JSON,
          price: '5.0',
          radius_mm: 13,
          updated_at: expect.any(String),
        });
        expectStampedWithin(res.body.updated_at, before, after);
        expect(await stored(t, 'marbles')).toEqual([
          { ...AMBER, price: '5.0', radius_mm: 13, updated_at: dbTime(res.body.updated_at) },
          COBALT,
        ]);
      });

      it(`should answer 404 via ${method.toUpperCase()} for a missing id, a word and 0, changing nothing`, async () => {
        const answers = [];
        for (const id of ['99', 'abc', '0', '-1']) {
          const res = await t.http()[method](`${PATH}/${id}`).send({ name: 'Ghost' });
          expectJson(res, 404);
          answers.push(res.body);
        }
        expect(answers).toEqual([
          { message: 'Marble 99 not found.' },
          { message: 'Marble abc not found.' },
          { message: 'Marble 0 not found.' },
          { message: 'Marble -1 not found.' },
        ]);
        expect(await stored(t, 'marbles')).toEqual([AMBER, COBALT]);
      });
    }

    it('should move updated_at forward on every update and never change created_at', async () => {
      const created = await t.http().post(PATH).send({ name: 'Fresh' });
      expect(created.status).toBe(201);
      const stamps = [created.body.updated_at as string];
      for (const body of [{ radius_mm: 2 }, {}, { description: 'again' }, { radius_mm: 2 }]) {
        const res = await t.http().patch(`${PATH}/3`).send(body);
        expectJson(res, 200);
        expect(res.body.created_at).toBe(created.body.created_at);
        expect(res.body.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(Date.parse(res.body.updated_at)).toBeGreaterThan(
          Date.parse(stamps[stamps.length - 1]),
        );
        stamps.push(res.body.updated_at);
      }
      const [row] = (await stored(t, 'marbles')).filter((r) => r.id === 3);
      expect(row).toEqual({
        ...marbleRow(3, 'Fresh'),
        radius_mm: 2,
        price: null,
        description: 'again',
        created_at: dbTime(created.body.created_at),
        updated_at: dbTime(stamps[stamps.length - 1]),
      });
    });

    it('should accept a record read with GET and sent back, ignoring its read-only fields', async () => {
      const read = (await t.http().get(`${PATH}/1`)).body;
      const { res, before, after } = await send('put', `${PATH}/1`, {
        ...read,
        id: 2,
        name: 'Amber Prime',
        created_at: '2000-01-01T00:00:00.000Z',
        user: CLEO,
        picture: null,
      });

      expectJson(res, 200);
      expect(res.body).toEqual({
        ...AMBER_JSON,
        name: 'Amber Prime',
        updated_at: expect.any(String),
      });
      expectStampedWithin(res.body.updated_at, before, after);
      expect(await stored(t, 'marbles')).toEqual([
        { ...AMBER, name: 'Amber Prime', updated_at: dbTime(res.body.updated_at) },
        COBALT,
      ]);
    });

    it('should clear the nullable price and owner with null', async () => {
      const { res } = await send('patch', `${PATH}/1`, { price: null, user_id: null });
      expectJson(res, 200);
      const { user: _omitted, ...withoutUser } = AMBER_JSON;
      expect(res.body).toEqual({ ...withoutUser, price: null, updated_at: expect.any(String) });
      expect(await stored(t, 'marbles')).toEqual([
        { ...AMBER, price: null, user_id: null, updated_at: dbTime(res.body.updated_at) },
        COBALT,
      ]);
    });

    it('should accept a wrapped JSON body and an XML body', async () => {
      const wrapped = await send('patch', `${PATH}/2`, {
        marble: { is_discounted: 'false', user_id: 3 },
      });
      expectJson(wrapped.res, 200);
      expect(wrapped.res.body).toMatchObject({ id: 2, is_discounted: false, user: CLEO });

      const xml = await t
        .http()
        .put(`${PATH}/2`)
        .set('Content-Type', 'application/xml')
        .send(
          '<marble><price type="decimal">3.30</price><description>Blue &amp; deep</description></marble>',
        );
      expectJson(xml, 200);
      expect(xml.body).toEqual({
        id: 2,
        name: 'Cobalt',
        radius_mm: 8,
        price: '3.3',
        is_discounted: false,
        created_at: T1_ISO,
        updated_at: expect.any(String),
        user: CLEO,
        description: 'Blue & deep',
        picture: null,
      });
      expect(await stored(t, 'marbles')).toEqual([
        AMBER,
        {
          ...COBALT,
          price: '3.3',
          is_discounted: false,
          user_id: 3,
          description: 'Blue & deep',
          updated_at: dbTime(xml.body.updated_at),
        },
      ]);
    });

    it('should answer an update in XML when XML is negotiated', async () => {
      const res = await t.http().patch(`${PATH}/2.xml`).send({ radius_mm: 9 });
      expectXml(res, 200);
      expect(res.text).toContain(
        '<id type="integer">2</id><name>Cobalt</name><radius-mm type="integer">9</radius-mm>',
      );
      expect((await stored(t, 'marbles'))[1].radius_mm).toBe(9);
    });

    it('should reject every invalid field at once and change nothing', async () => {
      const { res } = await send('patch', `${PATH}/1`, {
        name: 'Cobalt',
        radius_mm: 0,
        price: '10000',
        user_id: 99,
        colour: 'red',
      });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: {
          name: ['A marble with this name already exists.'],
          radius_mm: ['Must be at least 1.'],
          price: ['Must be greater than 0 and at most 9999.99; got 10000.0.'],
          user_id: ['No user with id 99.'],
          colour: [UNKNOWN_MARBLE_FIELD],
        },
      });
      expect(await stored(t, 'marbles')).toEqual([AMBER, COBALT]);
    });

    it('should refuse null for a field that is not nullable', async () => {
      const { res } = await send('put', `${PATH}/1`, { name: null, is_discounted: null });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: {
          name: ['This field may not be null.'],
          is_discounted: ['This field may not be null.'],
        },
      });
      expect(await stored(t, 'marbles')).toEqual([AMBER, COBALT]);
    });

    it('should let a marble keep its own name', async () => {
      const { res } = await send('put', `${PATH}/1`, { name: 'Amber', radius_mm: 14 });
      expectJson(res, 200);
      expect(res.body).toEqual({ ...AMBER_JSON, radius_mm: 14, updated_at: expect.any(String) });
      expect((await stored(t, 'marbles'))[0]).toEqual({
        ...AMBER,
        radius_mm: 14,
        updated_at: dbTime(res.body.updated_at),
      });
    });

    it('should refuse a body that is not an object', async () => {
      const res = await t
        .http()
        .patch(`${PATH}/1`)
        .send([{ name: 'x' }]);
      expectError(res, 400, { message: 'Request body must be a marble object.' });
      expect(await stored(t, 'marbles')).toEqual([AMBER, COBALT]);
    });
  });

  describe('emails', () => {
    const PATH = '/api/demo/emails';

    for (const method of METHODS) {
      it(`should change the address and owner via ${method.toUpperCase()}`, async () => {
        const { res } = await send(method, `${PATH}/2`, {
          email: 'robert@example.com',
          user_id: '3',
        });
        expectJson(res, 200);
        expect(res.body).toEqual({
          id: 2,
          email: 'robert@example.com',
          is_primary: false,
          user: CLEO,
        });
        expect(await stored(t, 'emails')).toEqual([
          { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
          { id: 2, email: 'robert@example.com', is_primary: false, user_id: 3 },
        ]);
      });
    }

    it('should answer 404 for a missing e-mail', async () => {
      const res = await t.http().patch(`${PATH}/9`).send({ email: 'x@example.com' });
      expectError(res, 404, { message: 'Email 9 not found.' });
      const word = await t.http().put(`${PATH}/abc`).send({ email: 'x@example.com' });
      expectError(word, 404, { message: 'Email abc not found.' });
    });

    it('should reject a bad address, a taken address and a missing user, changing nothing', async () => {
      const bad = await send('patch', `${PATH}/2`, { email: 'bob at example', user_id: 99 });
      expectError(bad.res, 400, {
        message: VALIDATION_FAILED,
        errors: { email: ['Must be a valid e-mail address.'], user_id: ['No user with id 99.'] },
      });
      const taken = await send('put', `${PATH}/2`, { email: 'ann@example.com' });
      expectError(taken.res, 400, {
        message: VALIDATION_FAILED,
        errors: { email: ['An email with this email already exists.'] },
      });
      expect(await stored(t, 'emails')).toEqual([
        { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
        { id: 2, email: 'bob@example.com', is_primary: false, user_id: 2 },
      ]);
    });

    it('should ignore user and billing_user sent back', async () => {
      const { res } = await send('patch', `${PATH}/2`, {
        id: 1,
        user: CLEO,
        billing_user: ANN,
        is_primary: '0',
      });
      expectJson(res, 200);
      expect(res.body).toEqual({ id: 2, email: 'bob@example.com', is_primary: false, user: BOB });
      expect((await t.rows('users')).map((u) => u.email_id)).toEqual([null, null, null]);
    });
  });

  describe('phone numbers', () => {
    const PATH = '/api/demo/phone_numbers';

    for (const method of METHODS) {
      it(`should keep an updated number exactly as sent via ${method.toUpperCase()}`, async () => {
        const { res } = await send(method, `${PATH}/1`, { number: ' +1 (555) 999.0000 ' });
        expectJson(res, 200);
        expect(res.body).toEqual({ id: 1, number: ' +1 (555) 999.0000 ', user: ANN });
        expect(await stored(t, 'phone_numbers')).toEqual([
          { id: 1, number: ' +1 (555) 999.0000 ', user_id: 1 },
          { id: 2, number: '555-0101', user_id: 2 },
        ]);
      });
    }

    it('should change the owner alone', async () => {
      const { res } = await send('patch', `${PATH}/2`, { phone_number: { user_id: 3 } });
      expectJson(res, 200);
      expect(res.body).toEqual({ id: 2, number: '555-0101', user: CLEO });
      expect((await stored(t, 'phone_numbers'))[1]).toEqual({
        id: 2,
        number: '555-0101',
        user_id: 3,
      });
    });

    it('should reject a blank or taken number and a null owner, changing nothing', async () => {
      const blank = await send('put', `${PATH}/1`, { number: '  ', user_id: null });
      expectError(blank.res, 400, {
        message: VALIDATION_FAILED,
        errors: { number: ['May not be blank.'], user_id: ['This field may not be null.'] },
      });
      const taken = await send('patch', `${PATH}/1`, { number: '555-0101' });
      expectError(taken.res, 400, {
        message: VALIDATION_FAILED,
        errors: { number: ['A phone number with this number already exists.'] },
      });
      const missing = await send('patch', `${PATH}/7`, { number: '1' });
      expectError(missing.res, 404, { message: 'Phone number 7 not found.' });
      expect(await stored(t, 'phone_numbers')).toEqual([
        { id: 1, number: '555-0100', user_id: 1 },
        { id: 2, number: '555-0101', user_id: 2 },
      ]);
    });
  });

  describe('movies', () => {
    const PATH = '/api/plain/movies';
    const VOYAGE = movieRow(1, 'Voyage', { main_genre_id: 1 });

    for (const method of METHODS) {
      it(`should replace genres and users with genre_ids and user_ids via ${method.toUpperCase()}`, async () => {
        const { res, before, after } = await send(method, `${PATH}/1`, {
          genre_ids: [3],
          user_ids: [2, 3],
        });

        expectJson(res, 200);
        expect(res.body).toEqual({
          id: 1,
          created_at: T1_ISO,
          name: 'Voyage',
          price: '12.0',
          updated_at: expect.any(String),
          main_genre: ACTION,
          genres: [COMEDY],
          users: [BOB, CLEO],
        });
        expectStampedWithin(res.body.updated_at, before, after);
        expect(await links(t, 'genres_movies')).toEqual([[1, 3]]);
        expect(await links(t, 'movies_users')).toEqual([
          [1, 2],
          [1, 3],
        ]);
        expect(await stored(t, 'movies')).toEqual([
          { ...VOYAGE, updated_at: dbTime(res.body.updated_at) },
          movieRow(2, 'Harbor'),
        ]);

        const shown = await t.http().get(`${PATH}/1`);
        expectJson(shown, 200);
        expect(shown.body).toEqual(res.body);
        const index = await t.http().get(PATH);
        expectJson(index, 200);
        expect(index.body[0]).toEqual({ ...res.body, genres: [] });
      });
    }

    it('should keep the relations when genre_ids and user_ids are not sent', async () => {
      const { res } = await send('patch', `${PATH}/1`, { name: 'Voyage Home', price: '15.25' });
      expectJson(res, 200);
      expect(res.body).toEqual({
        id: 1,
        created_at: T1_ISO,
        name: 'Voyage Home',
        price: '15.25',
        updated_at: expect.any(String),
        main_genre: ACTION,
        genres: [ACTION, DRAMA],
        users: [ANN],
      });
      expect(await links(t, 'genres_movies')).toEqual([
        [1, 1],
        [1, 2],
      ]);
      expect(await links(t, 'movies_users')).toEqual([[1, 1]]);
    });

    it('should clear the relations with empty lists and the main genre with null', async () => {
      const { res } = await send('put', `${PATH}/1`, {
        genre_ids: [],
        user_ids: [],
        main_genre_id: null,
      });
      expectJson(res, 200);
      expect(res.body).toEqual({
        id: 1,
        created_at: T1_ISO,
        name: 'Voyage',
        price: '12.0',
        updated_at: expect.any(String),
        genres: [],
        users: [],
      });
      expect(await links(t, 'genres_movies')).toEqual([]);
      expect(await links(t, 'movies_users')).toEqual([]);
      expect((await stored(t, 'movies'))[0]).toEqual({
        ...VOYAGE,
        main_genre_id: null,
        updated_at: dbTime(res.body.updated_at),
      });
    });

    it('should reject missing genres and users and a bad price, changing nothing', async () => {
      const { res } = await send('patch', `${PATH}/1`, {
        genre_ids: [1, 99],
        user_ids: [98],
        main_genre_id: 97,
        price: '0',
        name: 'Harbor',
      });
      expectError(res, 400, {
        message: VALIDATION_FAILED,
        errors: {
          genre_ids: ['No genre with id 99.'],
          user_ids: ['No user with id 98.'],
          main_genre_id: ['No genre with id 97.'],
          price: ['Must be greater than 0 and at most 999999.99; got 0.0.'],
          name: ['A movie with this name already exists.'],
        },
      });
      expect(await stored(t, 'movies')).toEqual([VOYAGE, movieRow(2, 'Harbor')]);
      expect(await links(t, 'genres_movies')).toEqual([
        [1, 1],
        [1, 2],
      ]);
      expect(await links(t, 'movies_users')).toEqual([[1, 1]]);
    });

    it('should answer 404 for a missing movie and a malformed id', async () => {
      const missing = await send('put', `${PATH}/42`, { name: 'Ghost' });
      expectError(missing.res, 404, { message: 'Movie 42 not found.' });
      const word = await send('patch', `${PATH}/abc`, { name: 'Ghost' });
      expectError(word.res, 404, { message: 'Movie abc not found.' });
      expect(await stored(t, 'movies')).toEqual([VOYAGE, movieRow(2, 'Harbor')]);
    });

    it('should keep created_at and move updated_at', async () => {
      const first = await send('patch', `${PATH}/2`, { price: '1' });
      const second = await send('patch', `${PATH}/2`, { price: '2' });
      expect([first.res.status, second.res.status]).toEqual([200, 200]);
      expect(first.res.body.created_at).toBe(T1_ISO);
      expect(second.res.body.created_at).toBe(T1_ISO);
      expect(Date.parse(first.res.body.updated_at)).toBeGreaterThan(
        Date.parse('2024-05-02T08:30:15.000Z'),
      );
      expect(Date.parse(second.res.body.updated_at)).toBeGreaterThan(
        Date.parse(first.res.body.updated_at),
      );
      expect((await stored(t, 'movies'))[1]).toEqual({
        ...movieRow(2, 'Harbor'),
        price: '2.0',
        created_at: T1,
        updated_at: dbTime(second.res.body.updated_at),
      });
      expect(T2).not.toBe(dbTime(second.res.body.updated_at));
    });
  });
});
