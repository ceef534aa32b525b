/**
 * The HTML format: the browsable page of an answer, with the same data as its JSON and XML
 * (which it shows too), the request and the response headers that matter.
 */
import { buildEnvelope } from '../../core/output/envelope';
import { Page } from '../../core/paginator';
import {
  Message,
  RenderRequest,
  Renderer,
  ResponseHeaders,
  ShapelessBody,
  renderBody,
} from '../../core/output/render';
import { ignoredOf } from '../../core/list-query';
import { encodeXml } from '../../core/output/xml';
import { Envelope, PageContext, PageData, PageRequest, statusLine } from './html-context';
import { errorPage, resultPage } from './html-pages';
import { titledLinks } from './html-links';
import { isFeedPage } from './html-feed';

/** A request that can say what its page needs (how it was asked, the route's title, the assets). */
export interface PageRenderRequest extends RenderRequest {
  page(): PageRequest;
}

type Row = Record<string, unknown>;

/** Headers the page shows, in this order. */
const SHOWN_HEADERS = ['ETag', 'Location', 'Allow', 'Retry-After'];

function pageRequestOf(request: RenderRequest | undefined): PageRenderRequest {
  if (!request || !('page' in request)) throw new Error('An HTML page needs its request.');
  return request as PageRenderRequest;
}

/** The request and response around an HTML page. */
function pageContext(request: PageRenderRequest, headers: ResponseHeaders): PageContext {
  const allow = request.allowedMethods();
  const shown: ResponseHeaders = { Allow: allow.join(', '), ...headers };
  return {
    ...request.page(),
    method: request.method,
    status: request.status,
    allow,
    headers: SHOWN_HEADERS.filter((name) => shown[name]).map((name): [string, string] => [
      name,
      shown[name],
    ]),
  };
}

export const HTML_RENDERER: Renderer = {
  contentType: 'text/html; charset=utf-8',
  headers: {
    // Its own script, stylesheet and images only: no inline code, no other origin.
    'Content-Security-Policy':
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
      "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  },
  result: (result, { resource, request, headers }) => {
    const url = () => request.url();
    const xml = renderBody(result, 'xml', resource, url);
    let data: PageData;
    let json: unknown = result;
    if (result instanceof Page) {
      const { base, query } = url();
      const envelope = buildEnvelope(result, base, query);
      data = { kind: 'list', page: result, envelope: envelope as Envelope };
      json = envelope;
    } else if (Array.isArray(result)) data = { kind: 'bare-list', records: result };
    else if (result instanceof Message) {
      data = { kind: 'message', message: result.message, records: result.records as Row[] };
    } else if (result instanceof ShapelessBody) {
      data = isFeedPage(result.value) ? { kind: 'feed', page: result.value } : { kind: 'document' };
      json = result.value;
    } else if (resource) data = { kind: 'record', record: result as Row };
    else data = { kind: 'object', value: result as Row };
    const bodies = { json: JSON.stringify(json, null, 2), xml };
    const context = pageContext(pageRequestOf(request), headers);
    context.ignored = ignoredOf(result);
    return resultPage(data, resource, context, bodies);
  },
  error: (failure, request) => {
    const page = pageRequestOf(request);
    const context = pageContext(page, { ...failure.headers });
    context.title = statusLine(failure.status);
    context.description = undefined;
    const bodies = {
      json: JSON.stringify(failure.body, null, 2),
      xml: encodeXml('hash', failure.body),
    };
    const links = titledLinks(failure.headers?.Link);
    return errorPage(failure.body, page.page().resource, context, bodies, links);
  },
};
