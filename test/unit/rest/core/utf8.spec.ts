import { isUtf8 } from 'node:buffer';
import { fc, it } from '@fast-check/jest';
import { RecordError } from '../../../../src/rest/core/errors';
import { decodeUtf8, invalidUtf8At } from '../../../../src/rest/core/input/utf8';

/** Bytes near the edges of UTF-8: lead bytes, continuation bytes, and the ones never used. */
const edgy = fc
  .uint8Array({ maxLength: 24 })
  .chain((random) =>
    fc
      .array(
        fc.constantFrom(
          0x00,
          0x41,
          0x7f,
          0x80,
          0x8f,
          0x90,
          0x9f,
          0xa0,
          0xbf,
          0xc0,
          0xc1,
          0xc2,
          0xdf,
          0xe0,
          0xed,
          0xef,
          0xf0,
          0xf4,
          0xf5,
          0xff,
        ),
        { maxLength: 12 },
      )
      .map((picked) => Uint8Array.from([...random, ...picked])),
  );

describe('invalidUtf8At', () => {
  it.each([
    ['valid ASCII and multi-byte text', Buffer.from('a é € 😀'), -1],
    ['a Latin-1 byte', Buffer.from([0x61, 0xe9, 0x62]), 1],
    ['a continuation byte alone', Buffer.from([0x80]), 0],
    ['an overlong two-byte form', Buffer.from([0x41, 0xc0, 0xaf]), 1],
    ['an overlong three-byte form', Buffer.from([0xe0, 0x80, 0xaf]), 0],
    ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80]), 0],
    ['a code point past U+10FFFF', Buffer.from([0xf4, 0x90, 0x80, 0x80]), 0],
    ['a sequence cut short at the end', Buffer.from([0x41, 0xe2, 0x82]), 1],
    ['a sequence cut short by ASCII', Buffer.from([0xe2, 0x41, 0x41]), 0],
    ['0xFF', Buffer.from([0x41, 0x41, 0xff]), 2],
  ])('should find %s', (_, bytes, offset) => {
    expect(invalidUtf8At(bytes)).toBe(offset);
  });

  it.prop([edgy])('should agree with Node and find the first bad sequence', (bytes) => {
    const at = invalidUtf8At(bytes);
    expect(at === -1).toBe(isUtf8(bytes));
    if (at !== -1) {
      // Everything before it is UTF-8; the sequence there is not, whatever follows it.
      expect(isUtf8(bytes.subarray(0, at))).toBe(true);
      for (let end = at + 1; end <= Math.min(at + 4, bytes.length); end++) {
        expect(isUtf8(bytes.subarray(at, end))).toBe(false);
      }
    }
  });
});

describe('decodeUtf8', () => {
  it('should decode UTF-8 and refuse anything else naming the byte and its offset', () => {
    expect(decodeUtf8(Buffer.from('Café'))).toBe('Café');
    const error = (() => {
      try {
        decodeUtf8(Buffer.from([0x7b, 0x22, 0xe9]));
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(RecordError);
    expect((error as RecordError).message).toBe(
      'Request body is not valid UTF-8: byte 0xE9 at offset 2.',
    );
  });
});
