/**
 * XML request bodies, read by the conventions of CONTRACT §2 in reverse: `type="integer"`,
 * `type="boolean"`, `type="array"` and `nil="true"` attributes, dashed names as underscored keys.
 */
import sax from 'sax';
import { parseStringPromise } from 'xml2js';
import { RecordError } from './errors';

interface XmlNode {
  '#name': string;
  $?: Record<string, string>;
  _?: string;
  $$?: XmlNode[];
}

/** No DTD at all: no entity can be declared, so none can be expanded (billion laughs, XXE). */
const DOCTYPE = /<!(DOCTYPE|ENTITY)/i;

export async function parseXml(text: string): Promise<unknown> {
  if (DOCTYPE.test(text)) throw RecordError.invalid('Malformed XML: DTDs are not allowed.');
  if (rootElements(text) !== 1) throw RecordError.invalid('Malformed XML in request body.');
  let document: Record<string, XmlNode>;
  try {
    document = await parseStringPromise(text, {
      explicitChildren: true,
      preserveChildrenOrder: true,
      explicitCharkey: true,
      strict: true,
    });
  } catch {
    throw RecordError.invalid('Malformed XML in request body.');
  }
  const root = document && Object.values(document)[0];
  if (!root) throw RecordError.invalid('Malformed XML in request body.');
  // The root element only frames the document: `<marble>…</marble>` and `<hash>…</hash>` both hold
  // a record; `<hash><marble>…</marble></hash>` is the wrapped form, like `{"marble": {…}}`.
  const empty = !root.$$?.length && !root.$?.type && root.$?.nil !== 'true';
  return empty ? {} : fromXml(root);
}

/**
 * How many top-level elements the document has (-1 if it is not well-formed). xml2js keeps the
 * first and drops the rest, so a second root would otherwise pass unnoticed.
 */
function rootElements(text: string): number {
  const parser = sax.parser(true);
  let depth = 0;
  let roots = 0;
  parser.onopentag = () => {
    if (depth++ === 0) roots++;
  };
  parser.onclosetag = () => {
    depth--;
  };
  parser.onerror = (error) => {
    throw error;
  };
  try {
    parser.write(text).close();
  } catch {
    return -1;
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
  switch (attributes.type) {
    case 'integer':
      if (!/^\s*-?\d+\s*$/.test(text)) {
        throw RecordError.invalid(`Malformed XML: <${node['#name']}> is not an integer.`);
      }
      return Number(text);
    case 'boolean':
      if (text.trim() !== 'true' && text.trim() !== 'false') {
        throw RecordError.invalid(`Malformed XML: <${node['#name']}> is not a boolean.`);
      }
      return text.trim() === 'true';
    default:
      return text;
  }
}

function underscored(name: string): string {
  return name.replace(/-/g, '_');
}
