/**
 * XML bodies cannot stall the service: a body nested deeper than 32 elements, with more than
 * 25,000 elements and attributes, or with an element of more than 1000 attributes, is refused with
 * 400 while it is streamed, before any object is built (the figures of bench/tools/xml-flood.js are in the README). Bodies within the limits, a
 * bulk create of 1000 records among them, are read as before.
 */
import { Post, expectRefusedInBoth } from './body-limits';
import { useApp } from '../support/harness';
import { USERS } from '../support/fixtures';
import { expectError } from '../support/http';

const DEEP = 'XML body is nested more than 32 elements deep.';
const MANY = 'XML body has more than 25000 elements and attributes.';
const WIDE = 'XML body has an element with more than 1000 attributes.';

/** ` a0="1" a1="1" …`: `count` attributes. */
const attributes = (count: number) =>
  Array.from({ length: count }, (_, i) => ` a${i}="1"`).join('');

describe('write: XML body limits', () => {
  const t = useApp({ seedEach: { users: USERS } });
  const postXml: Post = (body, path = '/api/demo/marbles') =>
    t.http().post(path).set('Content-Type', 'application/xml').send(body);

  it('should refuse 100,000 nested elements (700 kB) with 400, in JSON and XML', async () => {
    const body = '<a>'.repeat(100_000) + '</a>'.repeat(100_000);
    expect(body.length).toBe(700_000);
    await expectRefusedInBoth(t, postXml, body, DEEP);
  });

  it('should refuse a body one level too deep, and read one at the limit', async () => {
    const nested = (depth: number) =>
      '<marble><name>Deep</name><x>' +
      '<y>'.repeat(depth - 2) +
      '</y>'.repeat(depth - 2) +
      '</x></marble>';
    expectError(await postXml(nested(33)), 400, { message: DEEP });
    // 32 deep is read; the record then has an unknown field, an ordinary 400.
    const res = await postXml(nested(32));
    expect(res.status).toBe(400);
    expect(res.body.message).not.toBe(DEEP);
  });

  it('should refuse more than 25,000 elements, even flat, with 400', async () => {
    const flat = `<hash>${'<a/>'.repeat(25_000)}</hash>`;
    expectError(await postXml(flat), 400, { message: MANY });
    const hidden = `<hash>${'<a x="/>"></a>'.repeat(12_500)}</hash>`;
    expectError(await postXml(hidden), 400, { message: MANY });
  });

  it('should refuse an element with more than 1000 attributes: 90,000 of them (979 kB), with 400', async () => {
    const flood = `<marble><name>A</name><x${attributes(90_000)}/></marble>`;
    expect(flood.length).toBeGreaterThan(970_000);
    await expectRefusedInBoth(t, postXml, flood, WIDE);
    // In single quotes, with a `>` inside one: counted all the same.
    const quoted = `<marble><x${" b='>'".repeat(1001)}/></marble>`;
    expectError(await postXml(quoted), 400, { message: WIDE });
    // 1000 on one element are read, then an ordinary 400; 1001 are not.
    const res = await postXml(`<marble><name>A</name><x${attributes(1000)}/></marble>`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'Validation failed; nothing was saved.',
      errors: { x: ['Unknown field; marble has no such field.'] },
    });
    const over = `<marble><name>A</name><x${attributes(1001)}/></marble>`;
    expectError(await postXml(over), 400, { message: WIDE });
  });

  it('should count attributes as elements, all elements together: 24,026 read, 25,023 refused', async () => {
    // 2 elements, then elements of 1000 attributes each (the last, of what is left).
    const spread = (count: number) => {
      let xml = '<marble><name>A</name>';
      for (let left = count, i = 0; left > 0; left -= 1000, i++) {
        xml += `<x${i}${attributes(Math.min(1000, left))}/>`;
      }
      return `${xml}</marble>`;
    };
    // 27 elements and 24,996 attributes (25,023 in all): over, though no element has more than 1000.
    expectError(await postXml(spread(24_996)), 400, { message: MANY });
    // 26 elements and 24,000 attributes (24,026): read, then an ordinary 400.
    const res = await postXml(spread(24_000));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'Validation failed; nothing was saved. 14 fields are listed, and 10 more.',
    );
  });

  it('should still read a bulk create of 1000 marbles sent back whole (14 elements, 6 attributes each)', async () => {
    const items = Array.from(
      { length: 1000 },
      (_, i) =>
        `<marble><id type="integer">${i + 1}</id><name>M ${i}</name><radius-mm type="integer">3</radius-mm>` +
        `<price>1.5</price><is-discounted type="boolean">false</is-discounted><user-id type="integer">1</user-id>` +
        `<description>d</description><created-at>2024-05-01T12:00:00.000Z</created-at>` +
        `<updated-at>2024-05-01T12:00:00.000Z</updated-at><user><id type="integer">1</id><login>ann</login></user>` +
        `<picture nil="true"/></marble>`,
    );
    const res = await postXml(`<marbles type="array">${items.join('')}</marbles>`);
    expect(res.status).toBe(201);
    expect(res.body.records).toHaveLength(1000);
  }, 60_000);
});
