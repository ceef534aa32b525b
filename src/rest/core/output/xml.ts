/**
 * XML encoding of response bodies: the XML declaration first, root `hash` for an object and
 * `objects type="array"` for a bare list, `-` for `_` in names, `type` attributes on arrays,
 * integers, booleans, decimals and timestamps, `nil="true"` for null.
 *
 * The encoder is driven by a shape computed once per collection from its field declarations, so
 * the `type` attribute of a value comes from its declaration (a decimal and a string are both
 * strings in JSON) and every tag name is built once, not per row. Values without a declared
 * shape (messages, error maps) are encoded by their JavaScript type.
 */
import { NAMES_AS_SENT } from '../errors';
import { singular } from '../names';

export type XmlScalarType = 'string' | 'integer' | 'boolean' | 'decimal' | 'dateTime';

export type XmlShape =
  | { kind: 'scalar'; type: XmlScalarType }
  | { kind: 'object'; members: XmlMember[] }
  | { kind: 'array'; itemOpen: string; itemClose: string; of: XmlShape }
  /** An array whose items have shapes of their own, by position (atomic operations' results). */
  | { kind: 'items'; itemOpen: string; itemClose: string; of: XmlShape[] }
  | { kind: 'any' };

export interface XmlMember {
  key: string;
  shape: XmlShape;
  /** Precomputed `<tag`, `</tag>` pieces. */
  open: string;
  close: string;
  /** `<tag nil="true"/>`, for null. */
  nil: string;
  /** A scalar's whole start tag, with its type attribute: `<tag type="integer">`, `<tag>`. */
  start: string;
  /** How a scalar member's value is written (NOT_SCALAR: through `element`). */
  write: number;
}

/** `XmlMember.write`: not a scalar; text, escaped; a dateTime; any other typed scalar. */
const NOT_SCALAR = 0;
const TEXT = 1;
const DATE_TIME = 2;
const TYPED = 3;

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

export const ANY: XmlShape = { kind: 'any' };

export function member(key: string, shape: XmlShape): XmlMember {
  const tag = xmlName(key);
  const type = shape.kind === 'scalar' ? shape.type : undefined;
  return {
    key,
    shape,
    open: `<${tag}`,
    close: `</${tag}>`,
    nil: `<${tag} nil="true"/>`,
    start: type === undefined || type === 'string' ? `<${tag}>` : `<${tag} type="${type}">`,
    write:
      type === undefined
        ? NOT_SCALAR
        : type === 'string'
          ? TEXT
          : type === 'dateTime'
            ? DATE_TIME
            : TYPED,
  };
}

export function objectShape(members: XmlMember[]): XmlShape {
  return { kind: 'object', members };
}

export function arrayShape(item: string, of: XmlShape): XmlShape {
  const tag = xmlName(item);
  return { kind: 'array', itemOpen: `<${tag}`, itemClose: `</${tag}>`, of };
}

/** An array of `item` elements, the nth in the nth shape of `of` (inferred past its end). */
export function itemsShape(item: string, of: XmlShape[]): XmlShape {
  const tag = xmlName(item);
  return { kind: 'items', itemOpen: `<${tag}`, itemClose: `</${tag}>`, of };
}

export function scalarShape(type: XmlScalarType): XmlShape {
  return { kind: 'scalar', type };
}

/** Encodes `value` as a whole document under `root`. */
export function encodeXml(root: string, value: unknown, shape: XmlShape = ANY): string {
  return XML_DECLARATION + element(`<${root}`, `</${root}>`, value, shape) + '\n';
}

function element(open: string, close: string, value: unknown, shape: XmlShape): string {
  if (value === null) return open + ' nil="true"/>';
  switch (shape.kind) {
    case 'scalar':
      return scalar(open, close, value, shape.type);
    case 'object':
      return open + '>' + members(value as Record<string, unknown>, shape.members) + close;
    case 'array': {
      const items = value as unknown[];
      if (items.length === 0) return open + ' type="array"/>';
      let out = open + ' type="array">';
      for (const item of items) out += element(shape.itemOpen, shape.itemClose, item, shape.of);
      return out + close;
    }
    case 'items': {
      const items = value as unknown[];
      if (items.length === 0) return open + ' type="array"/>';
      let out = open + ' type="array">';
      items.forEach((item, i) => {
        out += element(shape.itemOpen, shape.itemClose, item, shape.of[i] ?? ANY);
      });
      return out + close;
    }
    default:
      return inferred(open, close, value);
  }
}

/**
 * The members of an object, in declaration order (absent ones left out). Scalars, most of any
 * record, are written here from their precomputed start tags, without a call per value.
 */
function members(obj: Record<string, unknown>, list: XmlMember[]): string {
  let out = '';
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    const v = obj[m.key];
    if (v === undefined) continue;
    if (v === null) {
      out += m.nil;
      continue;
    }
    switch (m.write) {
      case TEXT:
        out += m.start + escapeText(typeof v === 'string' ? v : String(v)) + m.close;
        break;
      case DATE_TIME:
        // `2024-05-01T12:00:00.123Z` is sent as `2024-05-01T12:00:00Z`.
        out += m.start + String(v).slice(0, 19) + 'Z' + m.close;
        break;
      case TYPED:
        out += m.start + String(v) + m.close;
        break;
      default:
        out += element(m.open, m.close, v, m.shape);
    }
  }
  return out;
}

function scalar(open: string, close: string, value: unknown, type: XmlScalarType): string {
  switch (type) {
    case 'string':
      return open + '>' + escapeText(String(value)) + close;
    case 'dateTime':
      // `2024-05-01T12:00:00.123Z` is sent as `2024-05-01T12:00:00Z`.
      return open + ' type="dateTime">' + String(value).slice(0, 19) + 'Z' + close;
    default:
      return open + ` type="${type}">` + String(value) + close;
  }
}

function inferred(open: string, close: string, value: unknown): string {
  switch (typeof value) {
    case 'boolean':
      return scalar(open, close, value, 'boolean');
    case 'number':
      return scalar(open, close, value, Number.isInteger(value) ? 'integer' : 'decimal');
    case 'string':
      return scalar(open, close, value, 'string');
  }
  if (Array.isArray(value)) {
    // The items' name from the tag as it is (already a valid name: not made over again).
    const item = singular(open.slice(1)) || xmlName('');
    return element(open, close, value, {
      kind: 'array',
      itemOpen: `<${item}`,
      itemClose: `</${item}>`,
      of: ANY,
    });
  }
  let out = open + '>';
  const asSent = (value as { [NAMES_AS_SENT]?: boolean })[NAMES_AS_SENT] === true;
  for (const [key, v] of Object.entries(value as object)) {
    if (v === undefined) continue;
    const tag = asSent ? sentName(key) : xmlName(key);
    out += element(`<${tag}`, `</${tag}>`, v, ANY);
  }
  return out + close;
}

const NAME_CHAR = /[^A-Za-z0-9._-]/g;

/**
 * `is_primary` → `is-primary`. Names that come from a client (unknown fields in error maps) are
 * made into valid XML names rather than trusted.
 */
export function xmlName(key: string): string {
  const name = key.replace(/_/g, '-').replace(NAME_CHAR, '-');
  return /^[A-Za-z_]/.test(name) ? name : `field-${name}`;
}

/** A valid XML name of the kind this service writes: letters, digits, `.`, `_` and `-`. */
const XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

/**
 * A name a client sent (a query parameter: `price__foo`, `user.login`), kept as it is where it
 * is a valid XML name; anything else is made into one as xmlName does.
 */
export function sentName(key: string): string {
  return XML_NAME.test(key) ? key : xmlName(key);
}

/**
 * Text that needs no change: none of the characters below, and no surrogate at all (a text with
 * one takes the long way, which keeps pairs and replaces lone ones).
 */
// eslint-disable-next-line no-control-regex -- these characters are exactly what is being matched
const UNSAFE = /[&<>\r\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;
// eslint-disable-next-line no-control-regex -- these characters are exactly what is being matched
const SPECIAL = /[&<>\r\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
// eslint-disable-next-line no-control-regex
const SPECIAL_ALL = /[&<>\r\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/g;

/**
 * Escapes markup characters. Characters XML 1.0 cannot carry at all (control characters, lone
 * surrogates) become U+FFFD, so no stored value can make the document ill-formed.
 */
export function escapeText(text: string): string {
  if (!UNSAFE.test(text)) return text;
  const clean = text.isWellFormed() ? text : text.toWellFormed();
  if (!SPECIAL.test(clean)) return clean;
  return clean.replace(SPECIAL_ALL, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '\r':
        return '&#13;';
      default:
        return '\uFFFD';
    }
  });
}
