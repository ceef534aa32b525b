/**
 * Every response the e2e suites receive, checked against the OpenAPI document of the app that
 * answered it: the operation of its path and method (or the 405 / 404 responses where there is
 * none), the response of its status, the schema of that response. JSON bodies as they are, XML
 * bodies decoded by the service's own XML reader. A response the document does not describe fails
 * the request that received it, so the document cannot drift from what the service does.
 *
 * Validators are compiled once per document, route, status and kind of request.
 */
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import { parseXml } from '../../sources';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Query parameters that leave fields out of records: only, except and fields. */
const SELECTION = /[?&](only|except|fields)=[^&]/;
const SUFFIX = /\.[A-Za-z][A-Za-z0-9]*$/;
const API = /^\/((api\/(demo|plain)|health)\/|api\/webhooks(\/|\.|$))/;

/**
 * Answers that need no route: the token and its scopes, the rate limit, the format, the body, and
 * no route at all.
 */
const ERROR_NAMES: Record<string, string> = {
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '429': 'TooManyRequests',
  '404': 'NotFound',
  '405': 'MethodNotAllowed',
  '406': 'NotAcceptable',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
};

interface Route {
  pattern: RegExp;
  path: string;
  item: Json;
}

/** One document, compiled: its routes, and an ajv instance for whole and for selected records. */
class Contract {
  private readonly routes: Route[];
  private readonly ajv = new Map<boolean, Ajv>();
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    // As OpenAPI matches them: a concrete path (`/marbles/events`) before a templated one.
    const templates = (path: string) => path.split('{').length;
    this.routes = Object.entries(document.paths as Json)
      .map(([path, item]) => ({
        path,
        item: item as Json,
        pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => templates(a.path) - templates(b.path));
  }

  /** What is wrong with a response, or undefined. */
  async check(method: string, url: string, res: Response): Promise<string | undefined> {
    const [rawPath, query = ''] = url.split('?');
    if (!API.test(rawPath) || method === 'HEAD') return undefined;
    const path = rawPath.replace(/\/$/, '').replace(SUFFIX, '');
    // CSV, however it was asked for, is documented on the read's `.csv` twin path.
    const csv = String(res.headers['content-type'] ?? '').startsWith('text/csv');
    const route = csv
      ? this.routes.find((r) => r.path.endsWith('.csv') && r.pattern.test(`${path}.csv`))
      : this.routes.find((r) => r.pattern.test(path));
    const status = String(res.status);
    const where = `${method} ${url} → ${status}`;
    // A CORS preflight is answered by the CORS layer (204, no body), not by the API.
    if (method === 'OPTIONS' && status === '204' && !res.text) return undefined;
    const operation = route?.item[method.toLowerCase()] as Json | undefined;
    let responseRef: string;
    if (!operation) {
      // No route: what the layers in front of the routes answer (token, format, body), 404, 405.
      const early = ERROR_NAMES[status];
      if (!early || (status === '405' && !route)) {
        return `${where}: ${route ? `the document has no ${method} on ${route.path}` : 'no documented path matches'}`;
      }
      responseRef = `#/components/responses/${early}`;
    } else {
      const response = operation.responses[status] as Json | undefined;
      if (!response) return `${where}: status not documented for ${method} ${route!.path}`;
      responseRef =
        response.$ref ??
        `#/paths/${pointer(route!.path)}/${method.toLowerCase()}/responses/${status}`;
    }
    const response = this.resolve(responseRef);
    const type = String(res.headers['content-type'] ?? '').split(';')[0];
    if (!response.content) {
      return res.text ? `${where}: a body where the document has none` : undefined;
    }
    if (!response.content[type]) return `${where}: media type ${type} not documented`;
    const body =
      type === 'application/xml'
        ? await parseXml(res.text)
        : type === 'text/csv'
          ? res.text
          : res.body;
    const selected = SELECTION.test(`?${query}`);
    const validate = this.validator(`${responseRef}/content/${pointer(type)}/schema`, selected);
    if (validate(body)) return undefined;
    return `${where} (${type}): ${JSON.stringify(validate.errors?.slice(0, 3))}`;
  }

  private resolve(ref: string): Json {
    let node: Json = this.document;
    for (const part of ref.slice(2).split('/')) node = node[unescape(part)] as Json;
    return node.$ref ? this.resolve(node.$ref as string) : node;
  }

  private validator(ref: string, selected: boolean): ValidateFunction {
    const key = `${selected}${ref}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajvFor(selected).compile({ $ref: `openapi.json${ref}` });
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** With a field selection, records carry only some of their fields: none is required. */
  private ajvFor(selected: boolean): Ajv {
    let ajv = this.ajv.get(selected);
    if (!ajv) {
      ajv = new Ajv({ strict: false, allErrors: true });
      addFormats(ajv);
      // OpenAPI 3.0's `nullable`, which ajv does not know.
      const document = toJsonSchema(structuredClone(this.document), selected);
      ajv.addSchema({ ...document, $id: 'openapi.json' });
      this.ajv.set(selected, ajv);
    }
    return ajv;
  }
}

/** OpenAPI 3.0 schemas as JSON Schema: `nullable: true` becomes a `null` alternative. */
function toJsonSchema(node: unknown, selected: boolean, key = ''): Json {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n, selected)) as unknown as Json;
  if (!node || typeof node !== 'object') return node as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'examples' || k === 'xml') continue;
    out[k] = k === 'properties' ? mapValues(v as Json, selected) : toJsonSchema(v, selected, k);
  }
  if (out.nullable === true) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  if (selected && key !== 'properties' && Array.isArray(out.required) && out.properties?.id) {
    delete out.required;
  }
  return out;
}

function mapValues(properties: Json, selected: boolean): Json {
  return Object.fromEntries(
    Object.entries(properties).map(([k, v]) => [k, toJsonSchema(v, selected)]),
  );
}

function pointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescape(part: string): string {
  return part.replace(/~1/g, '/').replace(/~0/g, '~');
}

const contracts = new WeakMap<object, Contract>();

/** The contract of a document, compiled once. */
export function contractOf(document: object): Contract {
  let contract = contracts.get(document);
  if (!contract) {
    contract = new Contract(document as Json);
    contracts.set(document, contract);
  }
  return contract;
}
