/**
 * Request bodies are UTF-8, strictly: a byte sequence that is not (a stray continuation byte, a
 * cut-short or overlong sequence, an encoded surrogate, a code point past U+10FFFF) is refused
 * with its offset, never decoded to U+FFFD and stored.
 */
import { isUtf8 } from 'node:buffer';
import { RecordError } from '../errors';

/** `bytes` as text, or a 400 naming the offset of the first byte that is not UTF-8. */
export function decodeUtf8(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  const at = invalidUtf8At(bytes);
  const byte = bytes[at].toString(16).toUpperCase().padStart(2, '0');
  throw RecordError.invalid(`Request body is not valid UTF-8: byte 0x${byte} at offset ${at}.`);
}

/**
 * The offset of the first sequence that is not UTF-8 (RFC 3629 §4), or -1. Only on the error
 * path: `isUtf8` has said there is one.
 */
export function invalidUtf8At(bytes: Uint8Array): number {
  const length = bytes.length;
  let at = 0;
  while (at < length) {
    const lead = bytes[at];
    if (lead < 0x80) {
      at++;
      continue;
    }
    // The number of continuation bytes, and the range of the first one (no overlong forms, no
    // surrogates, nothing past U+10FFFF).
    let count: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) count = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      count = 2;
      if (lead === 0xe0) low = 0xa0;
      else if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      count = 3;
      if (lead === 0xf0) low = 0x90;
      else if (lead === 0xf4) high = 0x8f;
    } else return at;
    if (at + count >= length) return at; // cut short
    const first = bytes[at + 1];
    if (first < low || first > high) return at;
    for (let next = 2; next <= count; next++) {
      const byte = bytes[at + next];
      if (byte < 0x80 || byte > 0xbf) return at;
    }
    at += count + 1;
  }
  return -1;
}
