/**
 * XML request bodies, read by the response encoding's conventions in reverse: `type="integer"`,
 * `type="boolean"`, `type="array"` and `nil="true"` attributes, dashed names as underscored keys.
 */
import sax from 'sax';
import { parseStringPromise } from 'xml2js';
import { RecordError } from '../errors';

interface XmlNode {
  '#name': string;
  $?: Record<string, string>;
  _?: string;
  $$?: XmlNode[];
}

/**
 * Deepest nesting and most elements a body may have, its attributes counted as elements (each
 * costs the parser about as much: 90,000 attributes in a megabyte took 0.7 s to read before they
 * counted). A bulk body of 1000 marbles sent back as read (every field, references included) has
 * 14 elements and 6 attributes a record (20,002 in all) and is 5 deep; the limits leave it room
 * and stop a hostile body after a few milliseconds of scanning, before any object is built.
 */
export const XML_MAX_DEPTH = 32;
export const XML_MAX_ELEMENTS = 25_000;
/**
 * Most attributes one element may have (a record's elements have two at most: `type`, `nil`), as
 * a JSON object has at most JSON_MAX_KEYS keys: a flood of attributes on one element is refused
 * within its first kilobytes.
 */
export const XML_MAX_ATTRIBUTES = 1000;

/** No DTD at all: no entity can be declared, so none can be expanded (billion laughs, XXE). */
const DOCTYPE = /<!(DOCTYPE|ENTITY)/i;

/**
 * Whether the markup declares a DTD or an entity: `<!DOCTYPE` or `<!ENTITY` outside CDATA
 * sections and comments (inside them it is text).
 */
function declaresDtd(text: string): boolean {
  if (!DOCTYPE.test(text)) return false;
  for (let at = text.indexOf('<!'); at !== -1; at = text.indexOf('<!', at + 2)) {
    const end = text.startsWith('<![CDATA[', at) ? ']]>' : text.startsWith('<!--', at) ? '-->' : '';
    if (!end) {
      if (DOCTYPE.test(text.slice(at, at + 9))) return true;
      continue;
    }
    const close = text.indexOf(end, at);
    // Unterminated: not well-formed, which the parser reports.
    if (close === -1) return false;
    at = close;
  }
  return false;
}

export async function parseXml(text: string): Promise<unknown> {
  if (declaresDtd(text)) throw RecordError.invalid('Malformed XML: DTDs are not allowed.');
  const roots = exceedsLimits(text) ?? rootElements(text);
  if (roots === TOO_DEEP) throw RecordError.invalid(TOO_DEEP_TEXT);
  if (roots === TOO_MANY) throw RecordError.invalid(TOO_MANY_TEXT);
  if (roots === TOO_WIDE) throw RecordError.invalid(TOO_WIDE_TEXT);
  if (typeof roots === 'string') throw malformed(roots);
  if (roots === 0) throw malformed('no element');
  if (roots > 1) throw malformed(`${roots} root elements, where a body has one`);
  let document: Record<string, XmlNode>;
  try {
    document = await parseStringPromise(text, {
      explicitChildren: true,
      preserveChildrenOrder: true,
      explicitCharkey: true,
      strict: true,
    });
  } catch (error) {
    throw malformed(error instanceof Error ? saxProblem(error) : undefined);
  }
  const root = document && Object.values(document)[0];
  if (!root) throw malformed('no element');
  // The root element only frames the document: `<marble>…</marble>` and `<hash>…</hash>` both hold
  // a record; `<hash><marble>…</marble></hash>` is the wrapped form, like `{"marble": {…}}`.
  const empty = !root.$$?.length && !root.$?.type && root.$?.nil !== 'true';
  const value = empty ? {} : fromXml(root);
  // The root's name, for the route to check against its collection's (XmlRootPipe).
  if (typeof value === 'object' && value !== null) {
    Object.defineProperty(value, XML_ROOT, { value: root['#name'], enumerable: false });
  }
  return value;
}

/** Where a body read from XML keeps the name of its root element (not enumerable). */
const XML_ROOT = Symbol('XML root element');

/** The name of the root element of a body read from XML, or undefined for any other body. */
export function xmlRootOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null
    ? (body as { [XML_ROOT]?: string })[XML_ROOT]
    : undefined;
}

/**
 * A quick scan of the tags (a loop over `<`, some 50 times faster than sax) that finds most
 * bodies past the limits without parsing them: TOO_DEEP, TOO_MANY, TOO_WIDE, or undefined. Within
 * a start tag, each quoted value is an attribute (counted as an element, and as one of its
 * element's), and a `>` inside one does not end the tag. Not a parser: a tag it misreads only makes it count less, and the sax pass that
 * follows enforces the limits exactly.
 */
function exceedsLimits(text: string): number | undefined {
  let depth = 0;
  let elements = 0;
  let at = text.indexOf('<');
  while (at !== -1) {
    const next = text.charCodeAt(at + 1);
    if (next === 0x2f /* / */) depth--;
    else if (next === 0x21 /* ! */) {
      const end = text.startsWith('<![CDATA[', at) ? ']]>' : '-->';
      const close = text.indexOf(end, at);
      if (close === -1) return undefined;
      at = text.indexOf('<', close);
      continue;
    } else if (next !== 0x3f /* ? */) {
      if (++elements > XML_MAX_ELEMENTS) return TOO_MANY;
      // The tag's end, past its quoted attribute values, each of which counts.
      let close = at + 1;
      let attributes = 0;
      for (;;) {
        const c = text.charCodeAt(close);
        if (c === 0x3e /* > */) break;
        if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
          if (++elements > XML_MAX_ELEMENTS) return TOO_MANY;
          if (++attributes > XML_MAX_ATTRIBUTES) return TOO_WIDE;
          close = text.indexOf(c === 0x22 ? '"' : "'", close + 1);
          if (close === -1) return undefined;
        } else if (Number.isNaN(c)) return undefined;
        close++;
      }
      if (text.charCodeAt(close - 1) !== 0x2f && ++depth > XML_MAX_DEPTH) return TOO_DEEP;
      at = text.indexOf('<', close);
      continue;
    }
    at = text.indexOf('<', at + 1);
  }
  return undefined;
}

/**
 * The quick scan above, fed the body's bytes as they arrive (a chunk at a time): `write` gives the
 * message of the first limit passed, else undefined, so that a hostile body is refused before the
 * rest of it is read. The same reading of the tags, on bytes (the markup is ASCII, and no byte of
 * a UTF-8 sequence of another character is). It stops at a `<!` that opens neither a comment nor
 * a CDATA section (a DTD, refused on its own terms once the body is read).
 */
export class XmlLimits {
  private depth = 0;
  private elements = 0;
  // Of the start tag being read.
  private attributes = 0;
  private state = TEXT;
  private quote = 0;
  private last = 0;
  // In a comment or CDATA section: its terminator, and how much of it was just seen.
  private terminator = '';
  private matched = 0;
  private exceeded: string | undefined;

  write(bytes: Uint8Array): string | undefined {
    if (this.exceeded !== undefined || this.state === STOPPED) return this.exceeded;
    const length = bytes.length;
    for (let at = 0; at < length; at++) {
      const c = bytes[at];
      switch (this.state) {
        case TEXT: {
          const open = bytes.indexOf(0x3c /* < */, at);
          if (open === -1) return undefined;
          at = open;
          this.state = OPEN;
          break;
        }
        case OPEN:
          if (c === 0x2f /* / */) {
            this.depth--;
            this.state = TEXT;
          } else if (c === 0x21 /* ! */) this.state = BANG;
          else if (c === 0x3f /* ? */) this.state = TEXT;
          else {
            if (++this.elements > XML_MAX_ELEMENTS) return this.fail(TOO_MANY_TEXT);
            this.state = TAG;
            this.last = 0;
            this.attributes = 0;
            at--;
          }
          break;
        case BANG:
          if (c !== 0x5b /* [ */ && c !== 0x2d /* - */) {
            this.state = STOPPED;
            return undefined;
          }
          this.terminator = c === 0x5b ? ']]>' : '-->';
          this.matched = 0;
          this.state = SPECIAL;
          break;
        case SPECIAL: {
          const t = this.terminator;
          if (c === t.charCodeAt(this.matched)) {
            if (++this.matched === 3) this.state = TEXT;
          } else if (!(this.matched === 2 && c === t.charCodeAt(1))) {
            this.matched = c === t.charCodeAt(0) ? 1 : 0;
          }
          break;
        }
        case TAG:
          if (c === 0x3e /* > */) {
            if (this.last !== 0x2f && ++this.depth > XML_MAX_DEPTH) {
              return this.fail(TOO_DEEP_TEXT);
            }
            this.state = TEXT;
          } else if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
            if (++this.elements > XML_MAX_ELEMENTS) return this.fail(TOO_MANY_TEXT);
            if (++this.attributes > XML_MAX_ATTRIBUTES) return this.fail(TOO_WIDE_TEXT);
            this.quote = c;
            this.state = QUOTED;
          }
          this.last = c;
          break;
        case QUOTED: {
          const close = bytes.indexOf(this.quote, at);
          if (close === -1) return undefined;
          at = close;
          this.last = this.quote;
          this.state = TAG;
          break;
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

const TEXT = 0;
const OPEN = 1;
const BANG = 2;
const SPECIAL = 3;
const TAG = 4;
const QUOTED = 5;
const STOPPED = 6;
const TOO_DEEP_TEXT = `XML body is nested more than ${XML_MAX_DEPTH} elements deep.`;
const TOO_MANY_TEXT = `XML body has more than ${XML_MAX_ELEMENTS} elements and attributes.`;
const TOO_WIDE_TEXT = `XML body has an element with more than ${XML_MAX_ATTRIBUTES} attributes.`;

const TOO_DEEP = -2;
const TOO_MANY = -3;
const TOO_WIDE = -4;

/** Thrown from the sax handlers to stop streaming at once. */
class Limit {
  constructor(readonly code: number) {}
}

/** The 400 of a body that is not well-formed, with what is wrong and where when known. */
function malformed(problem: string | undefined): RecordError {
  return RecordError.invalid(`Malformed XML in request body${problem ? `: ${problem}` : ''}.`);
}

/**
 * What sax found wrong, in the words of the JSON body's errors: `unexpected close tag at line 1,
 * column 21` from its "Unexpected close tag\nLine: 0\nColumn: 21\nChar: >" (lines counted from 0).
 */
function saxProblem(error: Error): string | undefined {
  const match = /^([^\n]+?)\.?\nLine: (\d+)\nColumn: (\d+)/.exec(error.message);
  if (!match) return undefined;
  const what = match[1].charAt(0).toLowerCase() + match[1].slice(1);
  return `${what} at line ${Number(match[2]) + 1}, column ${match[3]}`;
}

/**
 * How many top-level elements the document has (what is wrong, if it is not well-formed; TOO_DEEP,
 * TOO_MANY or TOO_WIDE past the limits, attributes counted as elements, found while streaming: the
 * rest is never read). xml2js keeps the first root and drops the rest, so a second root would
 * otherwise pass unnoticed.
 */
function rootElements(text: string): number | string {
  const parser = sax.parser(true);
  let depth = 0;
  let roots = 0;
  let elements = 0;
  let attributes = 0;
  parser.onopentag = () => {
    attributes = 0;
    if (++elements > XML_MAX_ELEMENTS) throw new Limit(TOO_MANY);
    if (depth++ === 0) roots++;
    if (depth > XML_MAX_DEPTH) throw new Limit(TOO_DEEP);
  };
  // An attribute counts as an element: sax reports it before its element's open tag.
  parser.onattribute = () => {
    if (++elements > XML_MAX_ELEMENTS) throw new Limit(TOO_MANY);
    if (++attributes > XML_MAX_ATTRIBUTES) throw new Limit(TOO_WIDE);
  };
  parser.onclosetag = () => {
    depth--;
  };
  parser.onerror = (error) => {
    throw error;
  };
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof Limit) return error.code;
    return (error instanceof Error && saxProblem(error)) || 'not well-formed';
  }
  return roots;
}

function fromXml(node: XmlNode): unknown {
  const attributes = node.$ ?? {};
  if (attributes.nil === 'true') return null;
  if (attributes.type === 'array') return (node.$$ ?? []).map(fromXml);
  if (node.$$ && node.$$.length > 0) {
    // No prototype: an element named `__proto__` is a field like any other (and so unknown).
    const object: Record<string, unknown> = Object.create(null);
    for (const child of node.$$) {
      const key = underscored(child['#name']);
      if (Object.hasOwn(object, key)) {
        throw RecordError.invalid(`Malformed XML: element <${child['#name']}> appears twice.`);
      }
      object[key] = fromXml(child);
    }
    return object;
  }
  const text = node._ ?? '';
  // A typed element whose text does not fit its type keeps its text, as an untyped one does:
  // validation then names it with every other bad field, in the words it uses for a JSON body.
  switch (attributes.type) {
    case 'integer':
      return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
    case 'boolean': {
      const flag = text.trim();
      return flag === 'true' ? true : flag === 'false' ? false : text;
    }
    default:
      return text;
  }
}

function underscored(name: string): string {
  return name.replace(/-/g, '_');
}
