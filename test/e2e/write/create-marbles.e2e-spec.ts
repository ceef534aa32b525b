/**
 * Create on the marbles: 201 with the record and an absolute Location, bare and wrapped bodies in
 * JSON and XML, coercion of numeric strings and boolean spellings, defaults, and read-only fields
 * ignored. Each write is checked against the stored rows. The validation rules are in
 * write-create-marble-rules.
 */
import { useApp } from '../support/harness';
import {
  ANN,
  BOB,
  MARBLE_FIELDS,
  USERS,
  createdMarble,
  marbleRow,
  storedMarble,
} from '../support/fixtures';
import {
  expectJson,
  expectLocation,
  expectStampedWithin,
  expectXml,
  xmlDocument,
} from '../support/http';

const PATH = '/api/demo/marbles';

describe('write: create', () => {
  const t = useApp({ seedEach: { users: USERS } });

  describe('marbles', () => {
    const postXml = (xml: string, type = 'application/xml') => t.sendRaw('post', PATH, type, xml);

    it('should create a marble from a bare JSON object with 201, the record and an absolute Location', async () => {
      const sent = {
        name: 'Amber Swirl',
        radius_mm: 12,
        price: '9.23',
        is_discounted: true,
        user_id: 1,
        description: 'A warm swirl',
      };
      const { res, before, after } = await t.send('post', PATH, sent);

      expectJson(res, 201);
      const id = await t.onlyId('marbles');
      expectLocation(res, `/api/demo/marbles/${id}`);
      expect(res.body).toEqual(
        createdMarble(id, {
          name: 'Amber Swirl',
          radius_mm: 12,
          price: '9.23',
          is_discounted: true,
          user: ANN,
          description: 'A warm swirl',
        }),
      );
      expect(Object.keys(res.body)).toEqual(MARBLE_FIELDS);
      expectStampedWithin(res.body.created_at, before, after);
      expectStampedWithin(res.body.updated_at, before, after);
      expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(
        Date.parse(res.body.created_at),
      );
      expect(await t.stored('marbles')).toEqual([storedMarble(res, sent)]);
    });

    it('should show the created marble at its Location', async () => {
      const { res } = await t.send('post', PATH, { name: 'Onyx', price: '4' });
      expect(res.status).toBe(201);
      const path = new URL(res.headers.location).pathname;
      const shown = await t.http().get(path);
      expectJson(shown, 200);
      expect(shown.body).toEqual(res.body);
      expect((await t.stored('marbles')).map((r) => [r.id, r.name, r.price])).toEqual([
        [res.body.id, 'Onyx', '4.0'],
      ]);
    });

    it('should accept the record wrapped in its singular name', async () => {
      const { res } = await t.send('post', PATH, { marble: { name: 'Wrapped', radius_mm: 5 } });

      expectJson(res, 201);
      const id = await t.onlyId('marbles');
      expectLocation(res, `/api/demo/marbles/${id}`);
      expect(res.body).toEqual(createdMarble(id, { name: 'Wrapped', radius_mm: 5 }));
      expect(await t.stored('marbles')).toEqual([
        storedMarble(res, { name: 'Wrapped', radius_mm: 5 }),
      ]);
    });

    it('should accept a bare XML body with typed and nil elements', async () => {
      const { res } = await postXml(
        '<marble><name>x</name><radius-mm type="integer">3</radius-mm><price nil="true"/></marble>',
      );

      expectJson(res, 201);
      const id = await t.onlyId('marbles');
      expectLocation(res, `/api/demo/marbles/${id}`);
      expect(res.body).toEqual(createdMarble(id, { name: 'x', radius_mm: 3 }));
      expect(await t.stored('marbles')).toEqual([storedMarble(res, { name: 'x', radius_mm: 3 })]);
    });

    it('should accept an XML body wrapped in <hash><marble>, sent as text/xml', async () => {
      const { res } = await postXml(
        '<?xml version="1.0" encoding="UTF-8"?>\n<hash><marble><name>Big &amp; &lt;bold&gt;</name>' +
          '<radius-mm type="integer">25</radius-mm><price type="decimal">4000.50</price>' +
          '<is-discounted type="boolean">true</is-discounted><user-id type="integer">2</user-id>' +
          '<description>Tiger "eye"</description></marble></hash>',
        'text/xml',
      );

      expectJson(res, 201);
      expect(res.body).toEqual(
        createdMarble(await t.onlyId('marbles'), {
          name: 'Big & <bold>',
          radius_mm: 25,
          price: '4000.5',
          is_discounted: true,
          user: BOB,
          description: 'Tiger "eye"',
        }),
      );
      expect(await t.stored('marbles')).toEqual([
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
      const res = await t.request({
        method: 'post',
        path: PATH,
        accept: 'application/xml',
        body: { name: 'Ruby', radius_mm: 7, price: '1.50', user_id: 3 },
      });

      expectXml(res, 201);
      const id = await t.onlyId('marbles');
      expectLocation(res, `/api/demo/marbles/${id}`);
      const stamps = res.text.match(/<(created|updated)-at type="dateTime">([^<]*)</g) ?? [];
      expect(stamps).toHaveLength(2);
      for (const stamp of stamps) expect(stamp).toMatch(/>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<$/);
      expect(res.text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'STAMP')).toBe(
        xmlDocument(
          `<hash><id type="integer">${id}</id><name>Ruby</name>` +
            '<radius-mm type="integer">7</radius-mm>' +
            '<price type="decimal">1.5</price><is-discounted type="boolean">false</is-discounted>' +
            '<created-at type="dateTime">STAMP</created-at><updated-at type="dateTime">STAMP</updated-at>' +
            '<user><id type="integer">3</id><login>cleo</login></user><description></description>' +
            '<picture nil="true"/></hash>',
        ),
      );
      expect(await t.stored('marbles')).toHaveLength(1);
    });

    it('should answer a create in XML for the .xml suffix, with the Location of the record', async () => {
      const res = await t.request({
        method: 'post',
        path: `${PATH}.xml`,
        type: 'application/xml',
        body: '<marble><name>Suffix</name></marble>',
      });

      expectXml(res, 201);
      const id = await t.onlyId('marbles');
      expectLocation(res, `/api/demo/marbles/${id}`);
      expect(res.text).toContain(`<id type="integer">${id}</id><name>Suffix</name>`);
    });

    it('should coerce numeric strings and numbers to the field types', async () => {
      const { res } = await t.send('post', PATH, {
        name: 'Coerced',
        radius_mm: '3',
        price: 7,
        user_id: '2',
      });

      expectJson(res, 201);
      expect(res.body).toEqual(
        createdMarble(await t.onlyId('marbles'), {
          name: 'Coerced',
          radius_mm: 3,
          price: '7.0',
          user: BOB,
        }),
      );
      expect(await t.stored('marbles')).toEqual([
        storedMarble(res, { name: 'Coerced', radius_mm: 3, price: '7.0', user_id: 2 }),
      ]);
    });

    it('should store prices in canonical form from decimal strings with trailing zeros', async () => {
      const { res } = await t.send('post', PATH, { name: 'Canonical', price: '12.50' });
      expectJson(res, 201);
      expect(res.body.price).toBe('12.5');
      expect((await t.stored('marbles'))[0].price).toBe('12.5');
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
        const { res } = await t.send('post', PATH, { name: `Flag ${i}`, is_discounted: sent });
        expectJson(res, 201);
        expect({ sent, flag: res.body.is_discounted }).toEqual({ sent, flag: expected });
      }
      const rows = await t.stored('marbles');
      expect(rows.map((r) => [r.name, r.is_discounted])).toEqual(
        spellings.map(([, expected], i) => [`Flag ${i}`, expected]),
      );
    });

    it('should accept an untyped XML boolean spelled 1', async () => {
      const { res } = await postXml(
        '<marble><name>One</name><is-discounted>1</is-discounted></marble>',
      );
      expectJson(res, 201);
      expect(res.body.is_discounted).toBe(true);
      expect((await t.stored('marbles'))[0].is_discounted).toBe(true);
    });

    it('should apply the defaults when only the name is sent', async () => {
      const { res } = await t.send('post', PATH, { name: 'Plain' });

      expectJson(res, 201);
      expect(res.body).toEqual(createdMarble(await t.onlyId('marbles'), { name: 'Plain' }));
      expect(await t.stored('marbles')).toEqual([
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
      const { res, before, after } = await t.send('post', PATH, {
        ...read,
        name: 'Copy',
        description: 'copied',
      });

      expectJson(res, 201);
      // A new id, never the one sent back (on a cluster, not necessarily the next: 8).
      const id = res.body.id as number;
      expect(id).not.toBe(7);
      expectLocation(res, `/api/demo/marbles/${id}`);
      expect(res.body).toEqual(
        createdMarble(id, { name: 'Copy', radius_mm: 10, price: '2.5', description: 'copied' }),
      );
      expectStampedWithin(res.body.created_at, before, after);
      const rows = await t.stored('marbles');
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
  });
});
