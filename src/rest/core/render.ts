/**
 * Pure functions from a handler's result to a response body in JSON or XML. Shapes are computed
 * once per collection and cached.
 */
import { buildEnvelope } from './envelope';
import { Page } from './paginator';
import { singular } from './names';
import { ResourceDefinition, perResource } from './resource';
import {
  ANY,
  XmlShape,
  arrayShape,
  encodeXml,
  member,
  objectShape,
  scalarShape,
  XmlScalarType,
} from './xml';
import { ScalarField, ScalarType } from './fields';

export type Format = 'json' | 'xml';

export const CONTENT_TYPES: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

/** A response with a message, and the records it concerns (bulk operations). */
export class Message<T = unknown> {
  constructor(
    readonly message: string,
    readonly records?: T[],
  ) {}
}

/** A body with no declared shape (the OpenAPI document): XML types are inferred from values. */
export class Untyped {
  constructor(readonly value: unknown) {}
}

export interface ErrorBody {
  message: string;
  errors?: unknown;
}

/** Where the request came from, for next/previous links. */
export interface RequestUrl {
  /** Absolute URL without the query, as the client sent it (suffix included). */
  base: string;
  /** The raw query string, without `?`. */
  query: string;
}

interface Shapes {
  record: XmlShape;
  envelope: XmlShape;
  list: XmlShape;
  message: XmlShape;
}

const XML_TYPES: Record<ScalarType, XmlScalarType> = {
  integer: 'integer',
  string: 'string',
  boolean: 'boolean',
  decimal: 'decimal',
  timestamp: 'dateTime',
};

export const shapesOf = perResource((resource): Shapes => {
  const record = recordShape(resource);
  return {
    record,
    envelope: objectShape([
      member('count', scalarShape('integer')),
      member('page', scalarShape('integer')),
      member('page_size', scalarShape('integer')),
      member('total_pages', scalarShape('integer')),
      member('next', scalarShape('string')),
      member('previous', scalarShape('string')),
      member('results', arrayShape('result', record)),
    ]),
    list: arrayShape('object', record),
    message: objectShape([
      member('message', scalarShape('string')),
      member('records', arrayShape('record', record)),
    ]),
  };
});

function recordShape(resource: ResourceDefinition): XmlShape {
  const scalars = (fields: ScalarField[]) =>
    objectShape(fields.map((f) => member(f.name, scalarShape(XML_TYPES[f.type]))));
  return objectShape(
    resource.fields.flatMap((field) => {
      switch (field.kind) {
        case 'scalar':
          return field.rendered ? [member(field.name, scalarShape(XML_TYPES[field.type]))] : [];
        case 'reference':
          return [member(field.name, scalars(field.fields))];
        case 'collection':
          return [member(field.name, arrayShape(singular(field.name), scalars(field.fields)))];
      }
    }),
  );
}

/** The body for a handler's result: a Page, a bare list, a Message or one record. */
export function renderBody(
  result: unknown,
  format: Format,
  resource: ResourceDefinition | undefined,
  url: () => RequestUrl,
): string {
  if (result instanceof Page) {
    const { base, query } = url();
    const envelope = buildEnvelope(result, base, query);
    if (format === 'json') return JSON.stringify(envelope);
    return encodeXml('hash', envelope, resource ? shapesOf(resource).envelope : ANY);
  }
  if (result instanceof Untyped) {
    return format === 'json' ? JSON.stringify(result.value) : encodeXml('hash', result.value);
  }
  if (format === 'json') return JSON.stringify(result);
  const shapes = resource ? shapesOf(resource) : undefined;
  if (Array.isArray(result)) {
    return encodeXml('objects', result, shapes?.list ?? arrayShape('object', ANY));
  }
  if (result instanceof Message) return encodeXml('hash', result, shapes?.message ?? ANY);
  return encodeXml('hash', result, shapes?.record ?? ANY);
}

export function encodeError(format: Format, body: ErrorBody): string {
  return format === 'json' ? JSON.stringify(body) : encodeXml('hash', body);
}
