/**
 * What every part of a browsable page knows: how the page was asked for, the request and response
 * around it, the static files, and the shapes of the data the renderer hands over.
 */
import { STATUS_CODES } from 'node:http';
import { Page } from '../../core/paginator';
import { ScalarType } from '../../core/fields';
import { ResourceDefinition } from '../../core/resource';
import { LiveFeed } from './html-live';

/** The static files of the page, under their content-hashed URLs. */
export interface PageAssets {
  script: string;
  style: string;
  icon: string;
  /** The live notice's script (html-live.ts). */
  live: string;
  /** The change feed page's script (html-feed.ts). */
  feed: string;
}

/** A record action of a collection (`PATCH /:id/<name>`), as its route describes it. */
export interface RecordAction {
  name: string;
  title: string;
  /** Body fields; none for an action that takes no body (a button). */
  fields: { name: string; type: ScalarType }[];
}

/** How the page was asked for: by Accept, by the `.html` suffix, or by `format=html`. */
export type HtmlRequest = 'accept' | 'suffix' | 'query';

/** The request and response around a page. */
export interface PageContext {
  method: string;
  /** The path the route saw (suffix removed), e.g. `/api/demo/marbles/7`. */
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  asked: HtmlRequest;
  status: number;
  /** Response headers worth showing: ETag, Allow, Location, Retry-After. */
  headers: [string, string][];
  title: string;
  description?: string;
  /** Whether writes need the API token. */
  token: boolean;
  /** Methods the path serves. */
  allow: readonly string[];
  assets: PageAssets;
  /** The collection's record actions (on record pages). */
  actions?: readonly RecordAction[];
  /** The query parameters a list ignored, and why (unknown names, operators, ordering fields). */
  ignored?: Readonly<Record<string, readonly string[]>>;
  /** The feed the page's live notice listens to, when it has one. */
  live?: LiveFeed;
  /** The titled links of the answer's `Link` header (a subscription's deliveries). */
  links?: { href: string; title: string }[];
  /** Each collection's path by its plural name (the feed's page links an event's record). */
  collectionPaths?: Record<string, string>;
  /** On the change feed's page: its streams' heartbeat interval, in ms. */
  heartbeatMs?: number;
}

/** What the page needs of the request beyond what every renderer gets, from the HTTP layer. */
export interface PageRequest extends Omit<PageContext, 'method' | 'status' | 'headers' | 'allow'> {
  /** The collection the path belongs to, for error pages (result pages have the route's). */
  resource?: ResourceDefinition;
}

export const SERVICE = 'Record collections';
export const DOCS = '/api/docs/';

const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  428: 'Precondition Required',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * `410 Gone`: the reason phrase from the table above (the same words on every Node line), else
 * Node's own (`http.STATUS_CODES`), so that no status the service sends has a bare number.
 */
export function statusLine(status: number): string {
  return `${status} ${REASONS[status] ?? STATUS_CODES[status] ?? ''}`.trim();
}

/** What a result page shows, as the renderer sorted it out. */
export type PageData =
  | { kind: 'list'; page: Page; envelope: Envelope }
  | { kind: 'bare-list'; records: Row[] }
  | { kind: 'record'; record: Row }
  | { kind: 'message'; message: string; records?: Row[] }
  | { kind: 'object'; value: Row }
  | { kind: 'feed'; page: { results: Row[]; next: string } }
  | { kind: 'document' };

/** The answer's body in JSON (pretty-printed) and XML, as the other renderers write it. */
export interface Bodies {
  json: string;
  xml: string;
}

/** The page of a handler's result: a list, a bare list, a record, a message or a document. */

export type Row = Record<string, unknown>;
export type Envelope = {
  count?: number;
  page: number;
  page_size: number;
  total_pages?: number;
  results: Row[];
};
