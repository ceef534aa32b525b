/**
 * Destroy and destroy_all: 204 with an empty body and the row gone, 404 after; destroy_all takes an
 * array of ids, answers the deleted records, and deletes nothing at all when the body is not an
 * array of ids or names an id that does not exist.
 */
import type { Response } from 'supertest';
import { useApp } from '../support/harness';
import {
  ANN,
  BOB,
  GENRES,
  T1_ISO,
  T2_ISO,
  USERS,
  marbleRow,
  movieRow,
  setBillingEmail,
  movieLinks,
} from '../support/fixtures';
import { expectError, expectJson, expectNotFound, expectXml, bulkDone } from '../support/http';

const BULK_DESTROY_SHAPE = 'Bulk destroy requires an array of primary keys as input.';

const MARBLE_ROWS = [
  marbleRow(1, 'Amber', { user_id: 1 }),
  marbleRow(2, 'Cobalt', { price: '4.0', is_discounted: true }),
  marbleRow(3, 'Onyx', { price: null }),
];
const MARBLE_1 = {
  id: 1,
  name: 'Amber',
  radius_mm: 10,
  price: '2.5',
  is_discounted: false,
  created_at: T1_ISO,
  updated_at: T2_ISO,
  user: ANN,
  description: '',
  picture: null,
};
const MARBLE_2 = {
  id: 2,
  name: 'Cobalt',
  radius_mm: 10,
  price: '4.0',
  is_discounted: true,
  created_at: T1_ISO,
  updated_at: T2_ISO,
  description: '',
  picture: null,
};
const PHONE_ROWS = [
  { id: 1, number: '555-0100', user_id: 1 },
  { id: 2, number: '(555) 0101', user_id: 2 },
  { id: 3, number: '555.0102', user_id: 2 },
];
const EMAIL_ROWS = [
  { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
  { id: 2, email: 'ann.work@example.com', is_primary: false, user_id: 1 },
  { id: 3, email: 'bob@example.com', is_primary: true, user_id: 2 },
];

describe('write: destroy', () => {
  const t = useApp({
    seedEach: {
      users: USERS,
      genres: GENRES,
      marbles: MARBLE_ROWS,
      emails: EMAIL_ROWS,
      phone_numbers: PHONE_ROWS,
      movies: [movieRow(1, 'Voyage', { main_genre_id: 1 }), movieRow(2, 'Harbor')],
      genres_movies: movieLinks('genre_id', [1, 1], [1, 2], [2, 3]),
      movies_users: movieLinks('user_id', [1, 1], [2, 2]),
    },
  });

  /** A 204: no body, no content. */
  function expectNoContent(res: Response) {
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers['content-length'] ?? '0').toBe('0');
  }

  describe('destroy', () => {
    it('should destroy a marble with 204 and an empty body, then answer 404 for it', async () => {
      const res = await t.http().delete('/api/demo/marbles/2');
      expectNoContent(res);
      expect(await t.stored('marbles')).toEqual([
        { ...MARBLE_ROWS[0], is_discounted: false },
        { ...MARBLE_ROWS[2], is_discounted: false },
      ]);

      expectNotFound(await t.http().get('/api/demo/marbles/2'), 'Marble 2 not found.');
      expectNotFound(await t.http().delete('/api/demo/marbles/2'), 'Marble 2 not found.');
      expect(await t.stored('marbles')).toHaveLength(2);
    });

    it('should answer 404 for a marble that never existed and for a malformed id', async () => {
      expectNotFound(await t.http().delete('/api/demo/marbles/99'), 'Marble 99 not found.');
      expectNotFound(await t.http().delete('/api/demo/marbles/abc'), 'Marble abc not found.');
      expectNotFound(await t.http().delete('/api/demo/marbles/0'), 'Marble 0 not found.');
      expect(await t.stored('marbles')).toHaveLength(3);
    });

    it('should destroy with a format suffix and still answer 204 with no body', async () => {
      expectNoContent(await t.http().delete('/api/demo/marbles/3.xml'));
      expectNoContent(await t.http().delete('/api/demo/marbles/1.json'));
      expect((await t.stored('marbles')).map((r) => r.id)).toEqual([2]);
    });

    it('should destroy an e-mail and unlink it as a billing address', async () => {
      await setBillingEmail(t, 3, 2);
      expectNoContent(await t.http().delete('/api/demo/emails/2'));
      expect(await t.stored('emails')).toEqual([EMAIL_ROWS[0], EMAIL_ROWS[2]]);
      expect((await t.rows('users')).map((u) => [u.id, u.email_id])).toEqual([
        [1, null],
        [2, null],
        [3, null],
      ]);
      expectNotFound(await t.http().delete('/api/demo/emails/2'), 'Email 2 not found.');
    });

    it('should destroy a phone number', async () => {
      expectNoContent(await t.http().delete('/api/demo/phone_numbers/1'));
      expect(await t.stored('phone_numbers')).toEqual([PHONE_ROWS[1], PHONE_ROWS[2]]);
      expectNotFound(await t.http().get('/api/demo/phone_numbers/1'), 'Phone number 1 not found.');
    });

    it('should destroy a movie and its genre and user links', async () => {
      expectNoContent(await t.http().delete('/api/plain/movies/1'));
      expect((await t.stored('movies')).map((m) => m.id)).toEqual([2]);
      expect(await t.links('genres_movies')).toEqual([[2, 3]]);
      expect(await t.links('movies_users')).toEqual([[2, 2]]);
      expectNotFound(await t.http().get('/api/plain/movies/1'), 'Movie 1 not found.');
      expectNotFound(await t.http().delete('/api/plain/movies/1'), 'Movie 1 not found.');
      expect((await t.rows('genres')).length).toBe(3);
    });
  });

  describe('destroy_all', () => {
    it('should delete the listed marbles and answer them', async () => {
      const { res } = await t.send('delete', '/api/demo/marbles', [2, 1]);
      expectJson(res, 200);
      // In the order of the request.
      expect(res.body).toEqual(bulkDone('destroy', [MARBLE_2, MARBLE_1]));
      expect(await t.stored('marbles')).toEqual([{ ...MARBLE_ROWS[2], is_discounted: false }]);
    });

    it('should answer destroy_all in XML when XML is negotiated', async () => {
      const res = await t.request({
        method: 'delete',
        path: '/api/demo/marbles',
        accept: 'application/xml',
        body: [3],
      });
      expectXml(res, 200);
      expect(res.text).toBe(
        '<?xml version="1.0" encoding="UTF-8"?>\n<hash><message>Bulk destroy successful.</message>' +
          '<records type="array"><record><id type="integer">3</id><name>Onyx</name>' +
          '<radius-mm type="integer">10</radius-mm><price nil="true"/>' +
          '<is-discounted type="boolean">false</is-discounted>' +
          '<created-at type="dateTime">2024-05-01T12:00:00Z</created-at>' +
          '<updated-at type="dateTime">2024-05-02T08:30:15Z</updated-at>' +
          '<description></description><picture nil="true"/></record></records></hash>\n',
      );
      expect((await t.stored('marbles')).map((r) => r.id)).toEqual([1, 2]);
    });

    it('should accept the ids as an XML array', async () => {
      const res = await t.request({
        method: 'delete',
        path: '/api/demo/marbles',
        type: 'application/xml',
        body: '<ids type="array"><id type="integer">1</id><id type="integer">2</id></ids>',
      });
      expectJson(res, 200);
      expect(res.body).toEqual(bulkDone('destroy', [MARBLE_1, MARBLE_2]));
      expect((await t.stored('marbles')).map((r) => r.id)).toEqual([3]);
    });

    it('should refuse a body that is not an array of ids, deleting nothing', async () => {
      const items = ' Ids must be positive integers: ';
      const bodies: [string | object | undefined, string][] = [
        [{ ids: [1, 2] }, BULK_DESTROY_SHAPE],
        ['1', BULK_DESTROY_SHAPE],
        [undefined, BULK_DESTROY_SHAPE],
        [['one', 2], `${BULK_DESTROY_SHAPE}${items}item 1 is "one".`],
        [
          [2, 'x', 0, null],
          `${BULK_DESTROY_SHAPE}${items}item 2 is "x"; item 3 is 0; item 4 is null.`,
        ],
        [[{ id: 1 }], `${BULK_DESTROY_SHAPE}${items}item 1 is {"id":1}.`],
      ];
      for (const [body, message] of bodies) {
        const req = t.http().delete('/api/demo/marbles').set('Content-Type', 'application/json');
        const res = await (body === undefined ? req : req.send(body));
        expectError(res, 400, { message });
      }
      expect(await t.stored('marbles')).toHaveLength(3);
    });

    it('should delete nothing and name the ids when one does not exist', async () => {
      const { res } = await t.send('delete', '/api/demo/marbles', [1, 99, 2]);
      expectError(res, 400, {
        message: 'No marbles with ids 99; nothing was deleted.',
        errors: { id: ['Marble 99 not found.'] },
      });
      expect((await t.stored('marbles')).map((r) => r.id)).toEqual([1, 2, 3]);
    });

    it('should refuse more than 1000 ids, deleting nothing', async () => {
      const ids = Array.from({ length: 1001 }, (_, i) => i + 1);
      const { res } = await t.send('delete', '/api/demo/marbles', ids);
      expectJson(res, 400);
      expect(res.body.message).toMatch(
        /^Bulk destroy requires an array of primary keys as input\./,
      );
      expect((await t.stored('marbles')).map((r) => r.id)).toEqual([1, 2, 3]);
    });

    it('should delete listed e-mails and answer them', async () => {
      const { res } = await t.send('delete', '/api/demo/emails', [1, 3]);
      expectJson(res, 200);
      expect(res.body).toEqual(
        bulkDone('destroy', [
          { id: 1, email: 'ann@example.com', is_primary: true, user: ANN },
          { id: 3, email: 'bob@example.com', is_primary: true, user: BOB },
        ]),
      );
      expect(await t.stored('emails')).toEqual([EMAIL_ROWS[1]]);
    });

    it('should delete no e-mail when one id is missing', async () => {
      const { res } = await t.send('delete', '/api/demo/emails', [3, 8, 9]);
      expectError(res, 400, {
        message: 'No emails with ids 8, 9; nothing was deleted.',
        errors: { id: ['Email 8 not found.', 'Email 9 not found.'] },
      });
      expect(await t.stored('emails')).toEqual(EMAIL_ROWS);
    });

    it('should delete listed phone numbers and refuse a non-array', async () => {
      const { res } = await t.send('delete', '/api/demo/phone_numbers', [2]);
      expectJson(res, 200);
      expect(res.body).toEqual(bulkDone('destroy', [{ id: 2, number: '(555) 0101', user: BOB }]));
      expect(await t.stored('phone_numbers')).toEqual([PHONE_ROWS[0], PHONE_ROWS[2]]);

      const { res: bad } = await t.send('delete', '/api/demo/phone_numbers', { id: 1 });
      expectError(bad, 400, { message: BULK_DESTROY_SHAPE });
      const { res: missing } = await t.send('delete', '/api/demo/phone_numbers', [1, 2]);
      expectError(missing, 400, {
        message: 'No phone numbers with ids 2; nothing was deleted.',
        errors: { id: ['Phone number 2 not found.'] },
      });
      expect(await t.stored('phone_numbers')).toEqual([PHONE_ROWS[0], PHONE_ROWS[2]]);
    });

    it('should answer 405 to DELETE on the movies collection and delete nothing', async () => {
      const { res } = await t.send('delete', '/api/plain/movies', [1, 2]);
      expectError(res, 405, {
        message: 'Method DELETE is not allowed here; allowed: GET, HEAD, POST, OPTIONS.',
      });
      expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      expect((await t.stored('movies')).map((m) => m.id)).toEqual([1, 2]);
    });
  });
});
