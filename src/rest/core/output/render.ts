/**
 * Pure functions from a handler's result (or an error) to a response: its body in a format and
 * the headers that go with it (Allow, Location, ETag, Content-Type). XML shapes are computed once
 * per collection and cached.
 *
 * A format is a Renderer: its Content-Type, how it writes a result and how it writes an error.
 * JSON and XML are here; the HTTP layer adds the ones that need more than the data (the HTML page)
 * and holds the table of every format it serves (http/response/renderers.ts).
 */
import { buildEnvelope } from './envelope';
import { Page } from '../paginator';
import { singular } from '../names';
import { ENTITY_TAG, Tagged } from '../preconditions';
import { ResourceDefinition, perResource } from '../resource';
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
import { ScalarField, ScalarType } from '../fields';

/** A response with a message, and the records it concerns (bulk operations). */
export class Message<T = unknown> {
  constructor(
    readonly message: string,
    readonly records?: T[],
  ) {}
}

/**
 * The whole filtered set of a list, read from the database in batches while it is written (a
 * format that can stream, CSV): the first batch is read before the answer starts, so a failure
 * there is still an ordinary error response.
 */
export class RecordStream<T = Record<string, unknown>> {
  constructor(
    readonly first: T[],
    private readonly rest: () => AsyncIterable<T[]>,
  ) {}

  async *batches(): AsyncGenerator<T[]> {
    yield this.first;
    yield* this.rest();
  }
}

/**
 * The XML shape a result of no collection carries for its members' types (atomic operations'
 * results: each record typed by its collection's declaration); without it they are inferred.
 */
export const XML_SHAPE = Symbol('XML shape');

/** `value` with the XML shape its body is encoded by (not a member: JSON never shows it). */
export function withXmlShape<T extends object>(value: T, shape: XmlShape): T {
  return Object.defineProperty(value, XML_SHAPE, { value: shape, enumerable: false });
}

/** A body with no declared shape (the OpenAPI document): its XML types come from its values. */
export class ShapelessBody {
  constructor(readonly value: unknown) {}
}

export interface ErrorBody {
  message: string;
  errors?: unknown;
}

/** An error answer: its status, `{message, errors?}` and the headers it needs (Retry-After). */
export interface Failure {
  status: number;
  body: ErrorBody;
  headers?: ResponseHeaders;
}

export type ResponseHeaders = Record<string, string>;

/** A body and the headers to send with it; no body for an empty answer (204). */
export interface Rendering {
  headers: ResponseHeaders;
  body: string | undefined;
}

/** A response rendered earlier (a stored Idempotency-Key answer), sent as it is. */
export class RenderedResponse {
  constructor(
    readonly status: number,
    readonly headers: ResponseHeaders,
    readonly body: Buffer,
  ) {}
}

/** What rendering may need of the request; each piece is worked out only when asked for. */
export interface RenderRequest {
  readonly method: string;
  /** The status the response leaves with. */
  readonly status: number;
  /** The URL as the client sent it, for next/previous links. */
  url(): RequestUrl;
  /** The absolute URL of the route's path (no trailing slash, no format suffix): `Location`'s base. */
  pathUrl(): string;
  /** The methods the path serves (the `Allow` of OPTIONS). */
  allowedMethods(): string[];
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

/** What a renderer sees besides the result: the declaration, the request, the headers set. */
export interface RenderContext {
  resource: ResourceDefinition | undefined;
  request: RenderRequest;
  /** The headers of the response so far (Allow, Location, ETag), for a format that shows them. */
  headers: ResponseHeaders;
}

/** One format: its Content-Type (and other headers) and how it writes results and errors. */
export interface Renderer {
  contentType: string;
  /** Headers every response in this format carries. */
  headers?: ResponseHeaders;
  result(result: unknown, context: RenderContext): string;
  /** `request` is absent where no request is at hand (the OpenAPI document's examples). */
  error(failure: Failure, request?: RenderRequest): string;
  /** For a format that can stream: a RecordStream's body, piece by piece. */
  stream?(result: RecordStream, context: RenderContext): AsyncIterable<string>;
}

/** JSON: the data as the interface document shows it. */
export const JSON_RENDERER: Renderer = {
  contentType: 'application/json; charset=utf-8',
  result: (result, { resource, request }) =>
    renderBody(result, 'json', resource, () => request.url()),
  error: ({ body }) => JSON.stringify(body),
};

/** XML: the same data, in the conventions of xml.ts. */
export const XML_RENDERER: Renderer = {
  contentType: 'application/xml; charset=utf-8',
  result: (result, { resource, request }) =>
    renderBody(result, 'xml', resource, () => request.url()),
  error: ({ body }) => encodeXml('hash', body),
};

/**
 * The response to a handler's result: `Allow` on OPTIONS, `Location` of a record created (201),
 * the record's `ETag`, and the body in `format` with its Content-Type. No body for `undefined`.
 */
export function renderResult(
  result: unknown,
  renderer: Renderer,
  resource: ResourceDefinition | undefined,
  request: RenderRequest,
): Rendering {
  const headers: ResponseHeaders = {};
  if (request.method === 'OPTIONS') headers.Allow = request.allowedMethods().join(', ');
  if (result === undefined) return { headers, body: undefined };
  if (request.status === 201 && isRecord(result)) {
    headers.Location = `${request.pathUrl()}/${result.id}`;
  }
  const tag = (result as Tagged)[ENTITY_TAG];
  if (tag !== undefined) headers.ETag = tag;
  const body = renderer.result(result, { resource, request, headers });
  if (renderer.headers) Object.assign(headers, renderer.headers);
  headers['Content-Type'] = renderer.contentType;
  return { headers, body };
}

/** The response to an error: its own headers, then the Content-Type of `renderer`. */
export function renderError(
  renderer: Renderer,
  failure: Failure,
  request?: RenderRequest,
): Rendering {
  return {
    headers: { ...failure.headers, ...renderer.headers, 'Content-Type': renderer.contentType },
    body: renderer.error(failure, request),
  };
}

function isRecord(result: unknown): result is { id: number } {
  return typeof result === 'object' && result !== null && 'id' in result && !Array.isArray(result);
}

/** The JSON or XML body for a handler's result: a Page, a bare list, a Message or one record. */
export function renderBody(
  result: unknown,
  format: 'json' | 'xml',
  resource: ResourceDefinition | undefined,
  url: () => RequestUrl,
): string {
  if (result instanceof Page) {
    const { base, query } = url();
    const envelope = buildEnvelope(result, base, query);
    if (format === 'json') return JSON.stringify(envelope);
    return encodeXml('hash', envelope, resource ? shapesOf(resource).envelope : ANY);
  }
  if (result instanceof ShapelessBody) {
    return format === 'json' ? JSON.stringify(result.value) : encodeXml('hash', result.value);
  }
  if (format === 'json') return JSON.stringify(result);
  const shapes = resource ? shapesOf(resource) : undefined;
  if (Array.isArray(result)) {
    return encodeXml('objects', result, shapes?.list ?? arrayShape('object', ANY));
  }
  if (result instanceof Message) return encodeXml('hash', result, shapes?.message ?? ANY);
  const own = (result as { [XML_SHAPE]?: XmlShape })[XML_SHAPE];
  return encodeXml('hash', result, shapes?.record ?? own ?? ANY);
}

/** The body of an error with no request at hand (the OpenAPI document's examples). */
export function encodeError(format: 'json' | 'xml', failure: Failure): string {
  return (format === 'json' ? JSON_RENDERER : XML_RENDERER).error(failure);
}
