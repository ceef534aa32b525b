import { fc, it } from '@fast-check/jest';
import { RecordError } from '../../../../src/rest/core/errors';
import { parseXml, XML_MAX_ATTRIBUTES, XmlLimits } from '../../../../src/rest/core/input/xml-input';

const WIDE = 'XML body has an element with more than 1000 attributes.';
const MANY = 'XML body has more than 25000 elements and attributes.';

/** `<marble><name>A</name><x a0="1" …/></marble>`, its x with `count` attributes. */
function wide(count: number, quote = '"'): string {
  let attributes = '';
  for (let i = 0; i < count; i++) attributes += ` a${i}=${quote}1${quote}`;
  return `<marble><name>A</name><x${attributes}/></marble>`;
}

/** What XmlLimits says of `text` fed in chunks cut at `cuts` (byte offsets). */
function scanned(text: string, cuts: number[]): string | undefined {
  const bytes = Buffer.from(text);
  const limits = new XmlLimits();
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b).concat(bytes.length)) {
    const exceeded = limits.write(bytes.subarray(from, Math.max(from, cut)));
    if (exceeded !== undefined) return exceeded;
    from = Math.max(from, cut);
  }
  return undefined;
}

describe('XML limits: attributes of one element', () => {
  it('should read an element of 1000 attributes and refuse one of 1001, whole', async () => {
    expect(XML_MAX_ATTRIBUTES).toBe(1000);
    await expect(parseXml(wide(1000))).resolves.toEqual(expect.any(Object));
    await expect(parseXml(wide(1001))).rejects.toEqual(RecordError.invalid(WIDE));
    await expect(parseXml(wide(1001, "'"))).rejects.toEqual(RecordError.invalid(WIDE));
  });

  it('should count each element apart: 20 elements of 1000 are within', async () => {
    const body = `<hash>${Array.from({ length: 20 }, (_, i) => wide(1000).replace(/marble/g, `m${i}`)).join('')}</hash>`;
    await expect(parseXml(body)).resolves.toEqual(expect.any(Object));
    expect(scanned(body, [])).toBeUndefined();
  });

  it.prop([fc.array(fc.nat({ max: 12_000 }), { maxLength: 6 })])(
    'should say the same while the body arrives, however it is cut',
    (cuts) => {
      expect(scanned(wide(1000), cuts)).toBeUndefined();
      expect(scanned(wide(1001), cuts)).toBe(WIDE);
      expect(scanned(wide(1001, "'"), cuts)).toBe(WIDE);
    },
  );

  it('should still count attributes towards all elements', async () => {
    const body = `<hash>${Array.from({ length: 26 }, (_, i) => wide(990).replace(/marble/g, `m${i}`)).join('')}</hash>`;
    await expect(parseXml(body)).rejects.toEqual(RecordError.invalid(MANY));
    expect(scanned(body, [])).toBe(MANY);
  });
});
