/**
 * The OpenAPI description of each route, next to the route: `@Operation(INDEX)` on a handler. A
 * description is a function of the collection's declaration and of what the running service is
 * configured with (its paginator), so the document is derived, not
 * written: ApiDocs (api-docs.ts) finds every route of every collection controller and refuses to
 * start when one has no description.
 *
 * An operation states its body, its success response and the statuses it adds; the statuses
 * every route shares (406, 503, and 401 / 413 / 415 on writes) are added here in one place, so a
 * new header or status (Idempotency-Key, If-Match, 409, 412, 428) is one entry in `writes()` or
 * one field of an OperationSpec.
 */
import { SetMetadata } from '@nestjs/common';
import { ScalarType } from '../../core/fields';
import { ORDERING_PARAM, SEARCH_PARAM } from '../../core/list-query';
import { pascal, withArticle, words } from '../../core/names';
import { PaginatorOptions } from '../../core/paginator';
import { Message } from '../../core/output/render';
import { ResourceDefinition } from '../../core/resource';
import { MAX_BULK_ITEMS, Schema, ref } from './openapi-schemas';
import {
  ParameterSpec,
  filterParameters,
  pageParameters,
  selectionParameters,
} from './openapi-parameters';

export const OPERATION = Symbol('openapi-operation');

/** What a description is built from. */
export interface OperationContext {
  resource: ResourceDefinition;
  /** The collection's paginator options; null when its index is a bare list. */
  paginator: PaginatorOptions | null;
  /** Paths a client may filter and order by, with their types (from the compiled queries). */
  paths: ReadonlyMap<string, ScalarType>;
}

export interface BodySpec {
  schema: Schema;
  description?: string;
  /** The JSON example (Swagger UI's default); the XML example is encoded from it. */
  example: unknown;
  /** The XML root element of the example. */
  xmlRoot?: string;
  required?: boolean;
}

export interface ResponseSpec {
  description: string;
  /** The result the example is rendered from (a record, a Message); else built from the schema. */
  example?: unknown;
  /** No body (204). */
  schema?: Schema;
  headers?: Record<string, Header>;
  /** Media types answered besides JSON and XML (the change feed's `text/event-stream`). */
  otherMedia?: Record<string, { schema: Schema; example?: string }>;
}

export interface Header {
  description: string;
  schema: Schema;
  required?: boolean;
}

/** One route's description, before the shared parts are added. */
export interface OperationSpec {
  /** `listMarbles`, `adjustMarblePrice`. */
  operationId: string;
  summary: string;
  description?: string;
  /** A write: reads a body (who may write is added by auth/openapi-security.ts). */
  write: boolean;
  /** `:id` in the path, with this example. */
  id?: number;
  parameters?: ParameterSpec[];
  body?: BodySpec;
  /** The success status and its response. */
  success: [number, ResponseSpec];
  /** Other statuses this route answers (keys of ERROR_RESPONSES). */
  errors?: number[];
  /** Reads no database (probes, the document): no 503. */
  offline?: boolean;
}

export type Describe = (context: OperationContext) => OperationSpec;

/** The description of a route of a collection controller. */
export const Operation = (describe: Describe) => SetMetadata(OPERATION, describe);

/** A route outside the collections (health): its tag and its description, as they are. */
export interface PlainSpec extends OperationSpec {
  tag: { name: string; description: string };
}

/** The description of a route of a controller that serves no collection. */
export const PlainOperation = (spec: PlainSpec) => SetMetadata(OPERATION, () => spec);

/** The statuses that share one response object (`#/components/responses/<name>`). */
export const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  304: {
    name: 'NotModified',
    description: 'The `If-None-Match` ETag still matches: no body.',
  },
  400: {
    name: 'BadRequest',
    description:
      'Malformed body, failed validation (every invalid field listed), unknown field, bad query value.',
  },
  401: {
    name: 'Unauthorized',
    description:
      'No bearer token where one is needed, or a token that is not valid (`WWW-Authenticate` says why).',
  },
  403: {
    name: 'Forbidden',
    description:
      'The token lacks the scope this operation needs; or webhooks, with no access control configured (docs/webhooks.md).',
  },
  404: { name: 'NotFound', description: 'No such record (or the id is not a positive integer).' },
  405: {
    name: 'MethodNotAllowed',
    description: 'A method this path does not serve; `Allow` lists those it does.',
  },
  406: { name: 'NotAcceptable', description: 'An explicit format other than json or xml.' },
  409: {
    name: 'Conflict',
    description:
      'A request with this `Idempotency-Key` is still in progress (or took the key over): retry shortly.',
  },
  410: {
    name: 'Gone',
    description: 'A change-feed cursor older than the events kept (EVENTS_RETENTION).',
  },
  412: {
    name: 'PreconditionFailed',
    description: 'The record changed since the version `If-Match` names; nothing was changed.',
  },
  413: {
    name: 'PayloadTooLarge',
    description:
      "A body over the size limit (1 MiB), or a write over a database cluster's write-set limits.",
  },
  415: {
    name: 'UnsupportedMediaType',
    description: 'A body that is neither JSON nor XML, or not UTF-8.',
  },
  422: {
    name: 'InvalidItems',
    description:
      'Some items of a bulk write are invalid; nothing was saved. Or: the `Idempotency-Key` was ' +
      'used for another request (`{message}` only).',
  },
  428: {
    name: 'PreconditionRequired',
    description: 'The service requires `If-Match` on writes of one record (REQUIRE_IF_MATCH).',
  },
  503: {
    name: 'ServiceUnavailable',
    description:
      'The database does not answer, a write kept conflicting with concurrent writes of the same ' +
      'records, or a read ran past its time limit. Nothing was written (unless the message says ' +
      'it may have been saved).',
  },
};

/** The statuses of every write, after its own (the body's size and type). */
function writes(): number[] {
  return [413, 415];
}

const sentence = (resource: ResourceDefinition) => words(resource.singular);
/** `a marble`, `an email`. */
const one = (resource: ResourceDefinition) => withArticle(sentence(resource)).toLowerCase();
const Singular = (resource: ResourceDefinition) => pascal(resource.singular);
const Plural = (resource: ResourceDefinition) => pascal(resource.plural);

/** The strong ETag of a single-record response: `"<id>.<version>"`, for If-Match. */
export const ETAG: Record<string, Header> = {
  ETag: {
    description:
      'The strong entity tag of the record, `"<id>.<version>"`, the same in JSON and XML; send it ' +
      'back in `If-Match`.',
    schema: { type: 'string' },
  },
};

const recordResponse = (resource: ResourceDefinition, description: string): ResponseSpec => ({
  description,
  schema: ref(Singular(resource)),
  headers: ETAG,
});

const bulkResponse = (resource: ResourceDefinition, description: string): ResponseSpec => ({
  description,
  schema: ref(`${Singular(resource)}BulkResult`),
});

export const INDEX: Describe = ({ resource, paginator, paths }) => {
  const searched = resource.fields.filter((f) => f.kind === 'scalar' && f.searchable);
  return {
    operationId: `list${Plural(resource)}`,
    summary: `List ${words(resource.plural)}`,
    description: paginator
      ? `A page of ${words(resource.plural)} in an envelope` +
        `${paginator.pageTotalCount ? '' : ' (no total count: `count` and `total_pages` are left out)'}.`
      : `Every ${sentence(resource)} that matches, as a bare list (no pagination).`,
    write: false,
    parameters: [
      ...pageParameters(paginator),
      {
        name: ORDERING_PARAM,
        in: 'query',
        description: `Comma-separated fields, \`-\` for descending; one of: ${[...paths.keys()].join(', ')}. Unknown names are ignored; ties are broken by id in the direction of the last field (none after a unique one).`,
        schema: { type: 'string' },
        example: '-id',
      },
      ...(searched.length
        ? [
            {
              name: SEARCH_PARAM,
              in: 'query' as const,
              description: `Text in ${searched.map((f) => f.name).join(' or ')}, ignoring case.`,
              schema: { type: 'string' },
            },
          ]
        : []),
      ...selectionParameters(resource),
      ...filterParameters(paths),
    ],
    success: [
      200,
      {
        description: paginator ? 'A page.' : 'The list.',
        schema: paginator
          ? ref(`${Plural(resource)}Page`)
          : { type: 'array', items: ref(Singular(resource)), xml: { name: 'objects' } },
      },
    ],
    errors: [400],
  };
};

export const SHOW: Describe = ({ resource }) => ({
  operationId: `show${Singular(resource)}`,
  summary: `Show ${one(resource)}`,
  write: false,
  id: resource.examples.id,
  parameters: selectionParameters(resource),
  success: [200, recordResponse(resource, `The ${sentence(resource)}.`)],
  errors: [400, 404],
});

const LOCATION: Record<string, Header> = {
  Location: {
    description: 'The URL of the new record.',
    schema: { type: 'string', format: 'uri' },
    required: true,
  },
};

export const CREATE: Describe = ({ resource }) => ({
  operationId: `create${Singular(resource)}`,
  summary: `Create ${one(resource)}`,
  write: true,
  body: {
    schema: ref(`${Singular(resource)}Create`),
    example: resource.examples.create,
    xmlRoot: resource.singular,
  },
  success: [
    201,
    { ...recordResponse(resource, 'The new record.'), headers: { ...LOCATION, ...ETAG } },
  ],
  errors: [400],
});

export const BULK_CREATE: Describe = (context) => {
  const { resource } = context;
  const single = CREATE(context);
  return {
    ...single,
    operationId: `create${Singular(resource)}`,
    summary: `Create ${one(resource)}, or several at once`,
    description:
      'An object creates one record (201, the record, `Location`); an array creates them all ' +
      `or none (201, \`{message, records}\`, at most ${MAX_BULK_ITEMS} items).`,
    parameters: selectionParameters(resource),
    body: {
      schema: {
        anyOf: [ref(`${Singular(resource)}Create`), bulkItems(ref(`${Singular(resource)}Create`))],
      },
      example: resource.examples.create,
      xmlRoot: resource.singular,
    },
    success: [
      201,
      {
        description:
          'The new record (with `Location` and `ETag`), or for an array `{message, records}`.',
        headers: ETAG,
        // oneOf: a record never has `message` and `records`, a bulk result never has `id`, so
        // a client narrows with `'id' in created`.
        schema: {
          oneOf: [
            {
              allOf: [ref(Singular(resource))],
              description: `The answer to an object body: the new ${sentence(resource)}.`,
            },
            {
              allOf: [ref(`${Singular(resource)}BulkResult`)],
              description: 'The answer to an array body: `{message, records}`.',
            },
          ],
        },
      },
    ],
    errors: [400, 422],
  };
};

/**
 * The body of a bulk form: an array of 1 to MAX_BULK_ITEMS items (all or none), `<hash>` in XML.
 */
function bulkItems(items: Schema): Schema {
  return { type: 'array', items, minItems: 1, maxItems: MAX_BULK_ITEMS, xml: { name: 'hash' } };
}

/**
 * An update under PUT: PUT is a partial update as PATCH is, so the same operation, under its
 * own operationId and summary.
 */
function underPut(
  patch: Describe,
  names: (resource: ResourceDefinition) => Pick<OperationSpec, 'operationId' | 'summary'>,
): Describe {
  return (context) => ({ ...patch(context), ...names(context.resource) });
}

export const UPDATE: Describe = ({ resource }) => ({
  operationId: `update${Singular(resource)}`,
  summary: `Update ${one(resource)} (partial)`,
  description: 'PUT and PATCH are both partial updates: only the fields sent change.',
  write: true,
  id: resource.examples.id,
  body: {
    schema: ref(`${Singular(resource)}Update`),
    example: resource.examples.update,
    xmlRoot: resource.singular,
  },
  success: [200, recordResponse(resource, 'The updated record.')],
  errors: [400, 404],
});

/** PUT on a record: the same partial update as PATCH, under its own operationId. */
export const REPLACE = underPut(UPDATE, (resource) => ({
  operationId: `replace${Singular(resource)}`,
  summary: `Update ${one(resource)} (PUT, also partial)`,
}));

export const DESTROY: Describe = ({ resource }) => ({
  operationId: `destroy${Singular(resource)}`,
  summary: `Delete ${one(resource)}`,
  write: true,
  id: resource.examples.deletable[0],
  success: [204, { description: 'Deleted; no body.' }],
  errors: [404],
});

export const UPDATE_ALL: Describe = ({ resource }) => ({
  operationId: `bulkUpdate${Plural(resource)}`,
  summary: `Update several ${words(resource.plural)} at once`,
  description: `All or none, at most ${MAX_BULK_ITEMS} items; an id that does not exist is a 400.`,
  write: true,
  parameters: selectionParameters(resource),
  body: {
    schema: bulkItems(ref(`${Singular(resource)}BulkUpdate`)),
    example: resource.examples.updateAll,
    xmlRoot: resource.plural,
  },
  success: [200, bulkResponse(resource, 'The updated records.')],
  errors: [400, 422],
});

/** PUT on the collection: the same bulk update as PATCH, under its own operationId. */
export const REPLACE_ALL = underPut(UPDATE_ALL, (resource) => ({
  operationId: `bulkReplace${Plural(resource)}`,
  summary: `Update several ${words(resource.plural)} at once (PUT)`,
}));

export const DESTROY_ALL: Describe = ({ resource }) => ({
  operationId: `bulkDestroy${Plural(resource)}`,
  summary: `Delete several ${words(resource.plural)} at once`,
  description: 'All or none; answers with the records as they were.',
  write: true,
  parameters: selectionParameters(resource),
  body: {
    schema: bulkItems({ type: 'integer', minimum: 1 }),
    example: resource.examples.deletable.slice(1),
    xmlRoot: 'ids',
  },
  success: [200, bulkResponse(resource, 'The deleted records, as they were.')],
  errors: [400],
});

export const OPTIONS: Describe = ({ resource }) => ({
  operationId: `describe${Plural(resource)}`,
  summary: `The OpenAPI document of ${words(resource.plural)}`,
  write: false,
  offline: true,
  success: [
    200,
    {
      description: `An OpenAPI ${'3.0'} document of this collection's routes and schemas.`,
      schema: { type: 'object', required: ['openapi', 'paths'] },
      headers: {
        Allow: {
          description: 'The methods of this path.',
          schema: { type: 'string' },
          required: true,
        },
      },
    },
  ],
});

const probe =
  (name: string, message: string): Describe =>
  ({ resource }) => ({
    operationId: `${name}${Plural(resource)}`,
    summary: `Answers "${message}"`,
    write: false,
    offline: true,
    success: [
      200,
      {
        description: `\`{"message": "${message}"}\`.`,
        schema: ref('Message'),
        example: new Message(message),
      },
    ],
  });

export const PING = probe('ping', 'pong');
export const CHILD_PING = probe('childPing', 'child pong');

/** A route of a collection's own answering `{message}`, e.g. a marble action. */
export function action(spec: {
  operationId: string;
  summary: string;
  body?: BodySpec;
  errors?: number[];
  /** The answer, for the example: `Price updated to 12.5.` */
  message: string;
}): Describe {
  return ({ resource }) => ({
    operationId: spec.operationId,
    summary: spec.summary,
    write: true,
    id: resource.examples.id,
    body: spec.body,
    success: [
      200,
      {
        description: "What changed, in words; `ETag` is the record's new tag.",
        schema: ref('Message'),
        headers: ETAG,
        example: new Message(spec.message),
      },
    ],
    errors: [...(spec.errors ?? []), 404],
  });
}

/** The statuses a route answers besides its success, in order, shared ones included. */
export function statusesOf(spec: OperationSpec): number[] {
  const all = new Set([
    ...(spec.errors ?? []),
    ...(spec.write ? writes() : []),
    // Idempotency-Key on every write (422 reused for another request, 409 still running);
    // If-Match on the writes of one record (412 not met, 428 required and missing).
    // 400: a malformed key or If-Match (and a malformed body, which DELETE may carry too).
    ...(spec.write ? [400, 409, 422] : []),
    ...(spec.write && spec.id !== undefined ? [412, 428] : []),
    ...(spec.write || spec.operationId.startsWith('describe') ? [] : [304]),
    406,
  ]);
  if (!spec.offline) all.add(503);
  if (spec.id !== undefined) all.add(404);
  return [...all].sort((a, b) => a - b);
}
