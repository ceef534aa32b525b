/**
 * JSON request bodies, with limits like XML's: a body nested deeper than JSON_MAX_DEPTH, or with
 * more than JSON_MAX_VALUES values, is refused before JSON.parse builds anything (a megabyte of
 * `[` costs the parser a tenth of a second of event loop), and a malformed body's error names
 * where it goes wrong.
 */
import { RecordError } from '../errors';

/**
 * Deepest nesting and most values a body may have. A bulk body of 1000 records sent back as read
 * (references included) is 4 deep with under 20 values a record; the limits leave room.
 */
export const JSON_MAX_DEPTH = 64;
export const JSON_MAX_VALUES = 50_000;
/**
 * Most keys one object may have. A record has a few dozen fields at most; an object of 49,000
 * keys (528 KB) cost JSON.parse and the check of its keys some 100 ms of event loop, and its
 * answer named each: refused by the scan instead, in about a millisecond.
 */
export const JSON_MAX_KEYS = 1000;

/** A JSON text, within the limits, parsed; a 400 (RecordError) otherwise. */
export function parseJson(text: string): unknown {
  return parseJsonBytes(Buffer.from(text, 'utf8'), () => text);
}

/**
 * A JSON body from its bytes: the limits are checked on the bytes, before they are decoded
 * (`decode`, which may refuse them): a body over a limit costs neither its text nor its parse.
 * The structural characters are ASCII, and no byte of a UTF-8 sequence of another character is.
 */
export function parseJsonBytes(bytes: Uint8Array, decode: (bytes: Uint8Array) => string): unknown {
  const exceeded = new JsonLimits().write(bytes);
  if (exceeded !== undefined) throw RecordError.invalid(exceeded);
  const text = decode(bytes);
  try {
    return JSON.parse(text);
  } catch {
    // Only now, on the error path, is the body read again to find where it goes wrong.
    throw RecordError.invalid(`Malformed JSON in request body: ${syntaxError(text)}.`);
  }
}

/**
 * A scan of the brackets and commas outside strings, fed the body's bytes as they arrive (a
 * chunk at a time, or all at once): `write` gives the message of the first limit passed, else
 * undefined. It counts each container and each comma, never more than the values there are, and
 * the commas of each open object (its keys, less one). Not a parser: what it cannot follow (an
 * unterminated string) only makes it count less, and JSON.parse refuses it. The structural
 * characters are ASCII, and no byte of a UTF-8 sequence of another character is.
 */
export class JsonLimits {
  private depth = 0;
  private values = 0;
  // Per open container: -1 for an array, else the commas of the object so far.
  private readonly commas = new Int32Array(JSON_MAX_DEPTH + 1);
  private inString = false;
  private escaped = false;
  private exceeded: string | undefined;

  write(bytes: Uint8Array): string | undefined {
    if (this.exceeded !== undefined) return this.exceeded;
    const length = bytes.length;
    const commas = this.commas;
    // The next backslash at or after `at` (-1: none left in this chunk), found once per backslash.
    let backslash = bytes.indexOf(0x5c);
    for (let at = 0; at < length; at++) {
      if (this.inString) {
        // The string's end, past its escapes (a backslash may end one chunk, its escape the next).
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        const quote = bytes.indexOf(0x22, at);
        if (backslash !== -1 && backslash < at) backslash = bytes.indexOf(0x5c, at);
        if (backslash !== -1 && (quote === -1 || backslash < quote)) {
          at = backslash;
          this.escaped = true;
          continue;
        }
        if (quote === -1) return undefined;
        at = quote;
        this.inString = false;
        continue;
      }
      const c = bytes[at];
      if (c === 0x22 /* " */) this.inString = true;
      else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
        if (++this.depth > JSON_MAX_DEPTH) return this.fail(TOO_DEEP);
        if (++this.values > JSON_MAX_VALUES) return this.fail(TOO_MANY);
        commas[this.depth] = c === 0x5b ? -1 : 0;
      } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
        if (this.depth > 0) this.depth--;
      } else if (c === 0x2c /* , */) {
        if (++this.values > JSON_MAX_VALUES) return this.fail(TOO_MANY);
        if (commas[this.depth] >= 0 && ++commas[this.depth] >= JSON_MAX_KEYS) {
          return this.fail(TOO_WIDE);
        }
      }
    }
    return undefined;
  }

  private fail(message: string): string {
    this.exceeded = message;
    return message;
  }
}

const TOO_DEEP = `JSON body is nested more than ${JSON_MAX_DEPTH} levels deep.`;
const TOO_MANY = `JSON body has more than ${JSON_MAX_VALUES} values.`;
const TOO_WIDE = `JSON body has an object with more than ${JSON_MAX_KEYS} keys.`;

/** Thrown by the checker below: what is wrong, at which index. */
class SyntaxAt {
  constructor(
    readonly at: number,
    readonly what: string,
  ) {}
}

/**
 * Where and why `text` (which JSON.parse refused) is not JSON: "unexpected "}" at line 1,
 * column 7". A small checker of the grammar (RFC 8259) that builds nothing; its messages do not
 * depend on the version of Node.
 */
export function syntaxError(text: string): string {
  let at = 0;
  const fail = (what?: string): never => {
    throw new SyntaxAt(
      at,
      what ?? (at >= text.length ? 'unexpected end of input' : `unexpected ${shown(text[at])}`),
    );
  };
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at])) at++;
  };
  const literal = (word: string) => {
    for (const char of word) {
      if (text[at] !== char) fail();
      at++;
    }
  };
  const digits = () => {
    const from = at;
    while (at < text.length && text[at] >= '0' && text[at] <= '9') at++;
    if (at === from) fail();
  };
  const number = () => {
    if (text[at] === '-') at++;
    if (text[at] === '0') at++;
    else digits();
    if (text[at] === '.') {
      at++;
      digits();
    }
    if (text[at] === 'e' || text[at] === 'E') {
      at++;
      if (text[at] === '+' || text[at] === '-') at++;
      digits();
    }
  };
  const string = () => {
    at++;
    for (;;) {
      if (at >= text.length) fail('unterminated string');
      const c = text.charCodeAt(at);
      if (c === 0x22) return void at++;
      if (c < 0x20) fail('control character in string');
      if (c === 0x5c) {
        at++;
        if (text[at] === 'u') {
          at++;
          for (let i = 0; i < 4; i++, at++) if (!/[0-9a-fA-F]/.test(text[at] ?? '')) fail();
          continue;
        }
        if (!'"\\/bfnrt'.includes(text[at] ?? 'x')) fail('bad escape in string');
      }
      at++;
    }
  };
  const value = (): void => {
    space();
    const c = text[at];
    if (c === '{') {
      at++;
      space();
      if (text[at] === '}') return void at++;
      for (;;) {
        space();
        if (text[at] !== '"') fail();
        string();
        space();
        if (text[at] !== ':') fail();
        at++;
        value();
        space();
        if (text[at] === '}') return void at++;
        if (text[at] !== ',') fail();
        at++;
      }
    }
    if (c === '[') {
      at++;
      space();
      if (text[at] === ']') return void at++;
      for (;;) {
        value();
        space();
        if (text[at] === ']') return void at++;
        if (text[at] !== ',') fail();
        at++;
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    if (c === '-' || (c >= '0' && c <= '9')) return number();
    fail();
  };
  try {
    value();
    space();
    if (at < text.length) fail();
    return 'not valid JSON';
  } catch (error) {
    if (!(error instanceof SyntaxAt)) throw error;
    return `${error.what} at ${lineAndColumn(text, error.at)}`;
  }
}

function shown(char: string): string {
  return /[\x21-\x7e]/.test(char) ? `"${char}"` : `character U+${hex(char)}`;
}

function hex(char: string): string {
  return char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
}

/** "line 2, column 5" (both from 1) of the index `at`. */
function lineAndColumn(text: string, at: number): string {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return `line ${line}, column ${at - start + 1}`;
}
