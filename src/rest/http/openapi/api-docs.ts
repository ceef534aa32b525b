import { Injectable, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { pascal, words } from '../../core/names';
import { ErrorBody, encodeError } from '../../core/output/render';
import { ResourceDefinition } from '../../core/resource';
import { encodeXml } from '../../core/output/xml';
import { CollectionContext } from '../../sql/record-collection';
import {
  Describe,
  ERROR_RESPONSES,
  OPERATION,
  OperationContext,
  OperationSpec,
  PlainSpec,
  statusesOf,
} from './openapi';
import {
  SHARED_SCHEMAS,
  Schema,
  bulkResultSchema,
  bulkUpdateItemSchema,
  inputSchema,
  pageSchema,
  recordSchema,
  summaryName,
  summarySchema,
} from './openapi-schemas';
import { RESOURCE } from '../options/resource.decorator';
import { csvOperation } from './openapi-csv';
import { csvExample, responseExample } from './openapi-examples';

type Json = Record<string, unknown>;

const JSON_TYPE = 'application/json';
const XML_TYPE = 'application/xml';

/** What the document says of the service as a whole. */
export interface DocumentSettings {
  title: string;
  description: string;
  /** `info.version`: the package version. */
  version: string;
  /** Collections (plural names), in the order their routes appear in the document. */
  order: readonly string[];
}

/** Methods in the order each path lists its operations. */
const METHODS: [RequestMethod, string][] = [
  [RequestMethod.GET, 'get'],
  [RequestMethod.POST, 'post'],
  [RequestMethod.PUT, 'put'],
  [RequestMethod.PATCH, 'patch'],
  [RequestMethod.DELETE, 'delete'],
  [RequestMethod.OPTIONS, 'options'],
];

interface Route {
  path: string;
  method: string;
  spec: OperationSpec;
  /** The collection's; none for a plain route (health). */
  context?: OperationContext;
  tag: { name: string; description?: string };
}

/**
 * The application's OpenAPI document, generated once at start from the routes of the collection
 * controllers and their declarations, and the part of it each collection's OPTIONS route answers
 * with. A route without an `@Operation` description stops the start: nothing goes undocumented.
 */
@Injectable()
export class ApiDocs {
  private document?: OpenAPIObject;
  private readonly parts = new Map<string, OpenAPIObject>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  /** Builds the document from the controllers; once, at start. */
  build(settings: DocumentSettings): OpenAPIObject {
    const routes: Route[] = [];
    const resources: ResourceDefinition[] = [];
    // Each collection module's context (CollectionModule.forFeature), by the declaration it holds.
    const contexts = new Map<ResourceDefinition, CollectionContext>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (instance instanceof CollectionContext) contexts.set(instance.resource, instance);
    }
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as Type | undefined;
      if (!controller) continue;
      const resource = this.reflector.get<ResourceDefinition | undefined>(RESOURCE, controller);
      if (!resource) {
        routes.push(...this.routesOf(controller));
        continue;
      }
      const collection = contexts.get(resource);
      if (!collection) {
        throw new Error(
          `${controller.name} serves ${resource.plural}, whose module imports no CollectionModule.forFeature(${resource.plural}).`,
        );
      }
      resources.push(resource);
      const context: OperationContext = {
        resource,
        paginator: collection.paginator.options,
        paths: collection.paths,
      };
      routes.push(...this.routesOf(controller, resource, context));
    }
    const rank = (r: ResourceDefinition) => {
      const at = settings.order.indexOf(r.plural);
      return at === -1 ? settings.order.length : at;
    };
    resources.sort((a, b) => rank(a) - rank(b));
    const pathRank = (route: Route) => {
      if (!route.context) return [resources.length, 0, route.path] as const;
      const resource = resources.indexOf(route.context.resource);
      const rest = route.path.slice(route.context.resource.path.length);
      // The collection, its own paths (child_ping, ping), a record, a record's actions.
      const kind = rest === '' ? 0 : !rest.startsWith('/{id}') ? 1 : rest === '/{id}' ? 2 : 3;
      return [resource, kind, rest] as const;
    };
    routes.sort((a, b) => {
      const [ra, ka, pa] = pathRank(a);
      const [rb, kb, pb] = pathRank(b);
      if (ra !== rb) return ra - rb;
      if (ka !== kb) return ka - kb;
      if (pa !== pb) return pa < pb ? -1 : 1;
      return methodRank(a.method) - methodRank(b.method);
    });

    const paths: Record<string, Record<string, unknown>> = {};
    for (const route of routes) {
      const operation = operationObject(route);
      (paths[route.path] ??= {})[route.method] = operation;
      const csv = csvExample(route.method, route.path, route.context);
      if (csv !== undefined) paths[`${route.path}.csv`] = { get: csvOperation(operation, csv) };
    }
    const schemas: Record<string, Schema> = {};
    for (const resource of resources) Object.assign(schemas, schemasOf(resource, routes));
    Object.assign(schemas, SHARED_SCHEMAS);

    this.document = {
      openapi: '3.0.3',
      info: {
        title: settings.title,
        description: settings.description,
        version: settings.version,
      },
      tags: [
        ...resources.map((r) => ({ name: r.plural, description: tagDescription(r, routes) })),
        ...[...new Map(routes.filter((r) => !r.context).map((r) => [r.tag.name, r.tag])).values()],
      ],
      paths,
      components: {
        schemas,
        responses: errorResponses(),
        parameters: {
          Format: {
            name: 'format',
            in: 'query',
            description:
              'The response format; also a `.json` / `.xml` suffix on the path, or `Accept`. Anything else is ' +
              'a 406. The reads of a collection also answer `csv` (`text/csv`): their `.csv` paths.',
            schema: { type: 'string', enum: ['json', 'xml'] },
          },
          IdempotencyKey: {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              '1-255 printable ASCII characters. The same request again within IDEMPOTENCY_TTL ' +
              '(24 h) gets the stored response byte for byte, with `Idempotent-Replayed: true`, and ' +
              'writes nothing; the key with another request is a 422, while its first request runs a 409.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
          IfMatch: {
            name: 'If-Match',
            in: 'header',
            required: false,
            description:
              "The record's ETag as read (or `*`): a record changed since is not written (412). " +
              'Required (428) where the service runs with REQUIRE_IF_MATCH=true.',
            schema: { type: 'string' },
          },
        },
      },
    } as unknown as OpenAPIObject;
    this.parts.clear();
    return this.document;
  }

  /** The document of every route of the service (`forPath` cuts one collection's out of it). */
  get serviceDocument(): OpenAPIObject {
    if (!this.document) throw new Error('The OpenAPI document has not been generated.');
    return this.document;
  }

  /** The routes under `path` and the components they refer to. */
  forPath(path: string): OpenAPIObject {
    let part = this.parts.get(path);
    if (part) return part;
    const whole = this.serviceDocument;
    const paths = Object.fromEntries(
      Object.entries(whole.paths).filter(
        ([p]) => p === path || p === `${path}.csv` || p.startsWith(`${path}/`),
      ),
    );
    const components = (whole.components ?? {}) as Record<string, Record<string, unknown>>;
    const used = new Map<string, Set<string>>();
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') {
          const [, , kind, name] = value.split('/');
          const names = used.get(kind) ?? new Set<string>();
          used.set(kind, names);
          if (!names.has(name)) {
            names.add(name);
            visit(components[kind]?.[name]);
          }
        } else {
          visit(value);
        }
      }
    };
    visit(paths);
    const tags = new Set(
      Object.values(paths).flatMap((ops) =>
        Object.values(ops as Record<string, { tags?: string[] }>).flatMap((op) => op.tags ?? []),
      ),
    );
    part = {
      ...whole,
      tags: (whole.tags ?? []).filter((t) => tags.has(t.name)),
      paths,
      components: {
        ...Object.fromEntries(
          [...used].map(([kind, names]) => [
            kind,
            Object.fromEntries([...names].sort().map((n) => [n, components[kind][n]])),
          ]),
        ),
        ...(components.securitySchemes ? { securitySchemes: components.securitySchemes } : {}),
      },
    } as OpenAPIObject;
    this.parts.set(path, part);
    return part;
  }

  /** The routes of a controller: of a collection, with its context; else plain routes. */
  private routesOf(controller: Type, resource?: ResourceDefinition, context?: OperationContext) {
    const routes: Route[] = [];
    const declared = Reflect.getMetadata(PATH_METADATA, controller) as string;
    const base = `/${declared.replace(/^\/|\/$/g, '')}`;
    for (const name of this.scanner.getAllMethodNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[name] as object;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      const sub = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      if (method === undefined || sub === undefined) continue;
      const path = `${base}${sub === '/' ? '' : `/${sub.replace(/^\//, '')}`}`.replace(
        /:(\w+)/g,
        '{$1}',
      );
      const verb = METHODS.find(([m]) => m === method)?.[1];
      const describe = Reflect.getMetadata(OPERATION, handler) as Describe | undefined;
      if (!verb || !describe) {
        throw new Error(`${controller.name}.${name} (${path}) has no OpenAPI @Operation.`);
      }
      const spec = describe(context!);
      const tag = 'tag' in spec ? (spec as PlainSpec).tag : { name: resource!.plural };
      routes.push({ path, method: verb, spec, context, tag });
    }
    return routes;
  }
}

function methodRank(method: string): number {
  return METHODS.findIndex(([, m]) => m === method);
}

function tagDescription(resource: ResourceDefinition, routes: Route[]): string {
  const own = routes.filter((r) => r.context?.resource === resource);
  const paginator = own[0]?.context?.paginator;
  return (
    `${pascal(resource.plural).replace(/([a-z])([A-Z])/g, '$1 $2')} at \`${resource.path}\`: ` +
    (paginator
      ? `the index is a page of ${paginator.pageSize} in an envelope`
      : 'the index is a bare list (no pagination)') +
    `; filters, ordering and search on the index, field selection (\`only\`, \`except\`) on reads` +
    `${resource.bulk ? ', bulk create, update and delete' : ''}.`
  );
}

/** The operation object of a route: its parameters, body, responses and security. */
function operationObject({ spec, context, tag }: Route): Json {
  const parameters: Json[] = [];
  if (spec.id !== undefined) {
    parameters.push({
      name: 'id',
      in: 'path',
      required: true,
      description: `The ${words(context!.resource.singular)}'s id.`,
      schema: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
      example: spec.id,
    });
  }
  for (const p of spec.parameters ?? []) parameters.push({ required: false, ...p });
  parameters.push({ $ref: '#/components/parameters/Format' });
  if (spec.write) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (spec.write && spec.id !== undefined) {
    parameters.push({ $ref: '#/components/parameters/IfMatch' });
  }

  const responses: Record<string, Json> = {};
  const [status, success] = spec.success;
  responses[String(status)] = {
    description: success.description,
    ...(success.headers ? { headers: success.headers } : {}),
    ...(success.schema
      ? {
          content: {
            ...media(success.schema, responseExample(spec, context)),
            ...success.otherMedia,
          },
        }
      : {}),
  };
  for (const error of statusesOf(spec)) {
    responses[String(error)] = { $ref: `#/components/responses/${ERROR_RESPONSES[error].name}` };
  }
  return {
    tags: [tag.name],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    operationId: spec.operationId,
    parameters,
    ...(spec.body
      ? {
          requestBody: {
            required: spec.body.required ?? true,
            ...(spec.body.description ? { description: spec.body.description } : {}),
            content: media(spec.body.schema, {
              json: spec.body.example,
              xml: encodeXml(spec.body.xmlRoot ?? 'hash', spec.body.example),
            }),
          },
        }
      : {}),
    responses,
  };
}

function media(schema: Schema, example?: { json: unknown; xml: string }): Json {
  return {
    [JSON_TYPE]: { schema, ...(example ? { example: example.json } : {}) },
    [XML_TYPE]: { schema, ...(example ? { example: example.xml } : {}) },
  };
}

/** The schemas of one collection. */
function schemasOf(resource: ResourceDefinition, routes: Route[]): Record<string, Schema> {
  const name = pascal(resource.singular);
  const own = routes.filter((r) => r.context?.resource === resource);
  const paginator = own[0]?.context?.paginator;
  const schemas: Record<string, Schema> = {
    [name]: recordSchema(resource),
    [`${name}Create`]: inputSchema(resource, 'create'),
    [`${name}Update`]: inputSchema(resource, 'update'),
  };
  if (paginator) schemas[`${pascal(resource.plural)}Page`] = pageSchema(resource, paginator);
  if (resource.bulk) {
    schemas[`${name}BulkUpdate`] = bulkUpdateItemSchema(resource);
    schemas[`${name}BulkResult`] = bulkResultSchema(resource);
  }
  for (const field of resource.fields) {
    if (field.kind !== 'scalar') {
      schemas[summaryName(field.table)] = summarySchema(field.fields, field.table);
    }
  }
  return schemas;
}

/** `#/components/responses`: one per error status, JSON and XML, with an example. */
function errorResponses(): Record<string, Json> {
  const headers: Record<number, Json> = {
    401: {
      'WWW-Authenticate': { description: 'Bearer realm="records"', schema: { type: 'string' } },
    },
    405: {
      Allow: { description: 'The methods this path serves.', schema: { type: 'string' } },
    },
    409: {
      'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } },
    },
    503: {
      'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } },
    },
  };
  const examples: Record<number, ErrorBody> = {
    400: {
      message: 'Validation failed; nothing was saved.',
      errors: { name: ['This field is required.'] },
    },
    401: { message: 'Writes need a valid bearer token (Authorization: Bearer <token>).' },
    403: {
      message:
        'This token does not allow writing marbles: it needs the scope marbles:write or records:write.',
    },
    404: { message: 'Marble 99 not found.' },
    405: { message: 'Method PUT is not allowed here; allowed: GET, HEAD, POST, OPTIONS.' },
    406: { message: 'Format "tsv" is not available; use json, xml or csv.' },
    409: {
      message:
        'A request with this Idempotency-Key is still in progress; retry shortly to get its response.',
    },
    412: {
      message: 'Marble 7 has changed since the version If-Match names; nothing was changed.',
    },
    428: {
      message:
        'This write needs an If-Match header with the record\'s ETag (or "*"): read the record first.',
    },
    413: { message: 'Request body is larger than 1048576 bytes.' },
    415: {
      message:
        'Content type "text/plain" is not supported; send application/json or application/xml.',
    },
    422: {
      message: 'Some items are invalid; nothing was saved.',
      errors: [null, { name: ['This field is required.'] }] as unknown as ErrorBody['errors'],
    },
    410: {
      message: 'The events after 41 are no longer kept (EVENTS_RETENTION); start again from 0.',
    },
    503: { message: 'The database is unavailable; try again shortly.' },
  };
  return Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, { name, description }]) => {
      if (status === '304') return [name, { description }];
      // 422: invalid bulk items, or an Idempotency-Key used for another request (`{message}`).
      const schema: Schema =
        status === '422'
          ? {
              anyOf: [
                { $ref: '#/components/schemas/BulkError' },
                { $ref: '#/components/schemas/Error' },
              ],
            }
          : { $ref: '#/components/schemas/Error' };
      const body = examples[Number(status)];
      return [
        name,
        {
          description,
          ...(headers[Number(status)] ? { headers: headers[Number(status)] } : {}),
          content: media(schema, {
            json: body,
            xml: encodeError('xml', { status: Number(status), body }),
          }),
        },
      ];
    }),
  );
}
