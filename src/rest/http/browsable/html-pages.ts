/**
 * The browsable API's pages: for a person who opens a route in a browser, the same answer as the
 * JSON one (same data, same status), with where they are, the request, the response headers that
 * matter, the data as a table and as JSON and XML, and forms for what the route allows. Built from
 * the handler's result and the collection's declaration only: no query of its own.
 *
 * The pages carry no inline script or style: the one script and the one stylesheet are static
 * files. What the script needs (where a form writes, the record's ETag, field types) is in data-
 * attributes, escaped like every other value.
 */
import { pageUrl } from '../../core/envelope';
import { Field, ScalarField, ScalarType } from '../../core/fields';
import { words } from '../../core/names';
import { Page } from '../../core/paginator';
import { ResourceDefinition, perResource } from '../../core/resource';
import { LiveFeed, liveNotice } from './html-live';
import { Html, href, isSafeUrl, join, markup } from './html-template';

/** The static files of the page, under their content-hashed URLs. */
export interface PageAssets {
  script: string;
  style: string;
  icon: string;
  /** The live notice's script (html-live.ts). */
  live: string;
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
}

/** What the page needs of the request beyond what every renderer gets, from the HTTP layer. */
export interface PageRequest extends Omit<PageContext, 'method' | 'status' | 'headers' | 'allow'> {
  /** The collection the path belongs to, for error pages (result pages have the route's). */
  resource?: ResourceDefinition;
}

const SERVICE = 'Record collections';
const DOCS = '/api/docs/';

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

export function statusLine(status: number): string {
  return `${status} ${REASONS[status] ?? ''}`.trim();
}

/** What a result page shows, as the renderer sorted it out. */
export type PageData =
  | { kind: 'list'; page: Page; envelope: Envelope }
  | { kind: 'bare-list'; records: Row[] }
  | { kind: 'record'; record: Row }
  | { kind: 'message'; message: string; records?: Row[] }
  | { kind: 'object'; value: Row }
  | { kind: 'document' };

/** The answer's body in JSON (pretty-printed) and XML, as the other renderers write it. */
export interface Bodies {
  json: string;
  xml: string;
}

/** The page of a handler's result: a list, a bare list, a record, a message or a document. */
export function resultPage(
  data: PageData,
  resource: ResourceDefinition | undefined,
  ctx: PageContext,
  bodies: Bodies,
): string {
  let body: Html = markup``;
  if (resource) {
    if (data.kind === 'list') body = listBody(data.page, data.envelope, resource, ctx);
    else if (data.kind === 'bare-list') body = bareListBody(data.records, resource, ctx);
    else if (data.kind === 'record') body = recordBody(data.record, resource, ctx);
  }
  if (data.kind === 'message') body = messageBody(data.message, data.records, resource, ctx);
  if (data.kind === 'object') body = objectBody(data.value);
  return layout(ctx, resource, body, bodies.json, bodies.xml);
}

/** The page of an error answer: its message, and each field's problems beside the field's name. */
export function errorPage(
  error: { message: string; errors?: unknown },
  resource: ResourceDefinition | undefined,
  ctx: PageContext,
  bodies: Bodies,
): string {
  const errors = error.errors;
  const list =
    errors && typeof errors === 'object' && !Array.isArray(errors)
      ? markup`<dl class="field-errors">
          ${Object.entries(errors as Record<string, unknown>).map(
            ([field, problems]) =>
              markup`<dt><code>${field}</code></dt>
                ${(Array.isArray(problems) ? problems : [problems]).map(
                  (p) => markup`<dd>${String(p)}</dd>`,
                )}`,
          )}
        </dl>`
      : undefined;
  const body = markup`<section class="error" aria-labelledby="error-h">
    <h2 id="error-h">${statusLine(ctx.status)}</h2>
    <p class="error-message">${error.message}</p>
    ${list}
    <p>
      ${
        resource
          ? markup`<a href="${href(linkTo(ctx, resource.path))}">Back to ${words(resource.plural)}</a>
              ·`
          : undefined
      }
      <a href="${DOCS}">API documentation</a>
    </p>
  </section>`;
  return layout(ctx, resource, body, bodies.json, bodies.xml);
}

type Row = Record<string, unknown>;
export type Envelope = {
  count?: number;
  page: number;
  page_size: number;
  total_pages?: number;
  results: Row[];
};

/** What a list ignored of its query, above its data: a typo otherwise answers everything. */
function ignoredNotice(ctx: PageContext): Html | undefined {
  if (!ctx.ignored) return undefined;
  return markup`<div class="ignored" role="note">
    <p><strong>Ignored query parameters</strong> (the answer is as if they were not there;
      <code>STRICT_QUERY=true</code> makes them a 400):</p>
    <ul>
      ${Object.entries(ctx.ignored).map(
        ([name, problems]) => markup`<li><code>${name}</code>: ${problems.join(' ')}</li>`,
      )}
    </ul>
  </div>`;
}

function layout(
  ctx: PageContext,
  resource: ResourceDefinition | undefined,
  body: Html,
  json: string,
  xml: string,
): string {
  const formats = withoutFormat(ctx.query);
  // The root takes no suffix: `/?format=json`.
  const suffixed = (suffix: string) =>
    ctx.path === '/'
      ? `/?${formats ? `${formats}&` : ''}format=${suffix.slice(1)}`
      : ctx.path.replace(/\/$/, '') + suffix + (formats ? `?${formats}` : '');
  const requestLine = `${ctx.method} ${ctx.path}${ctx.asked === 'suffix' ? '.html' : ''}${ctx.query ? `?${ctx.query}` : ''}`;
  const page = markup`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>${ctx.title} · ${SERVICE}</title>
        <link rel="stylesheet" href="${href(ctx.assets.style)}" />
        <link rel="icon" href="${href(ctx.assets.icon)}" type="image/svg+xml" />
        <script src="${href(ctx.assets.script)}" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to the content</a>
        <header class="top">
          ${breadcrumbs(ctx, resource)}
          <form class="token" id="token-form" data-required="${ctx.token ? 'true' : 'false'}">
            <label for="api-token"
              >Bearer token (API token or JWT)${ctx.token ? '' : ' (not required)'}</label
            >
            <input id="api-token" type="password" autocomplete="off" spellcheck="false" />
            <button type="submit">Use</button>
            <button type="button" id="token-forget">Forget</button>
            <span id="token-state" class="muted" role="status"></span>
          </form>
        </header>
        <main id="main" data-path="${ctx.path}" data-collection="${resource?.path ?? ''}">
          <h1>${ctx.title}</h1>
          ${ctx.description ? markup`<p class="description">${ctx.description}</p>` : undefined}
          <p id="flash" class="flash" role="status" aria-live="polite"></p>
          ${ignoredNotice(ctx)}
          ${liveNotice(ctx.live, ctx.status, ctx.assets.live)}
          <section class="request" aria-labelledby="request-h">
            <h2 id="request-h">Request and response</h2>
            <p><code class="request-line">${requestLine}</code></p>
            <dl class="headers">
              <dt>Status</dt>
              <dd>
                <strong class="status status-${Math.floor(ctx.status / 100)}xx">${statusLine(ctx.status)}</strong>
              </dd>
              ${ctx.headers.map(
                ([name, value]) =>
                  markup`<dt>${name}</dt>
                    <dd><code>${value}</code></dd>`,
              )}
            </dl>
            <p class="formats">
              As <a href="${href(suffixed('.json'))}">JSON</a> ·
              <a href="${href(suffixed('.xml'))}">XML</a> ·
              ${
                resource && ctx.status < 400
                  ? markup`<a href="${href(suffixed('.csv'))}">CSV</a> ·`
                  : undefined
              }
              <a href="${DOCS}">API documentation</a>
              ${
                resource
                  ? markup`·
                      <button
                        type="button"
                        class="link"
                        id="options-button"
                        data-url="${resource.path}">
                        OPTIONS metadata
                      </button>`
                  : undefined
              }
            </p>
            <pre id="options-output" class="code" hidden tabindex="0"></pre>
          </section>
          ${body}
          <section class="representations" aria-labelledby="repr-h">
            <h2 id="repr-h">Response body</h2>
            <details open>
              <summary>JSON</summary>
              <pre class="code" tabindex="0"><code>${json}</code></pre>
            </details>
            <details>
              <summary>XML</summary>
              <pre class="code" tabindex="0"><code>${prettyXml(xml)}</code></pre>
            </details>
          </section>
        </main>
      </body>
    </html>
`;
  return page.markup;
}

function breadcrumbs(ctx: PageContext, resource: ResourceDefinition | undefined): Html {
  const crumbs: Html[] = [markup`<li><a href="${DOCS}">API</a></li>`];
  const path = ctx.path.replace(/\/$/, '');
  if (resource) {
    const rest = path.slice(resource.path.length).split('/').filter(Boolean);
    const here = rest.length === 0;
    crumbs.push(
      here
        ? markup`<li>
            <a href="${href(linkTo(ctx, resource.path))}" aria-current="page">${resource.plural}</a>
          </li>`
        : markup`<li><a href="${href(linkTo(ctx, resource.path))}">${resource.plural}</a></li>`,
    );
    rest.forEach((segment, i) => {
      const target = `${resource.path}/${rest.slice(0, i + 1).join('/')}`;
      crumbs.push(
        i === rest.length - 1
          ? markup`<li><a href="${href(linkTo(ctx, target))}" aria-current="page">${segment}</a></li>`
          : markup`<li><a href="${href(linkTo(ctx, target))}">${segment}</a></li>`,
      );
    });
  } else {
    crumbs.push(markup`<li><span aria-current="page">${path || '/'}</span></li>`);
  }
  return markup`<nav aria-label="Breadcrumb" class="crumbs">
    <ol>
      ${crumbs}
    </ol>
  </nav>`;
}

/** A link to another page of the browsable API, asking for HTML the way this page was asked. */
function linkTo(ctx: PageContext, path: string, query = ''): string {
  if (ctx.asked === 'suffix') return `${path}.html${query ? `?${query}` : ''}`;
  if (ctx.asked === 'query') {
    const kept = withoutFormat(query);
    return `${path}?${kept ? `${kept}&` : ''}format=html`;
  }
  return query ? `${path}?${query}` : path;
}

/** The query without its `format` parameters. */
function withoutFormat(query: string): string {
  return query
    .split('&')
    .filter((part) => part !== '' && !/^format(=|$)/.test(part))
    .join('&');
}

/** The query's parameters, decoded, last value winning. */
function params(query: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of query.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    out.set(
      decode(eq === -1 ? part : part.slice(0, eq)),
      decode(eq === -1 ? '' : part.slice(eq + 1)),
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Tables

function cell(value: unknown): Html {
  if (value === null) return markup`<span class="null">null</span>`;
  if (value === undefined) return markup`<span class="muted">—</span>`;
  if (Array.isArray(value)) return join(value.map(cell), ', ');
  if (typeof value === 'object') {
    const o = value as Row;
    const label = o.login ?? o.name;
    if (label !== undefined && o.id !== undefined)
      return markup`${String(label)} <span class="muted">#${String(o.id)}</span>`;
    return markup`${JSON.stringify(value)}`;
  }
  if (typeof value === 'boolean') return markup`<span class="bool">${String(value)}</span>`;
  return markup`${String(value as string)}`;
}

/** Column names: the fields of the records shown, in declared order. */
function columnsOf(records: Row[], resource: ResourceDefinition): string[] {
  const names = renderedNames(resource);
  if (records.length === 0) return names;
  const present = new Set(records.flatMap((r) => Object.keys(r)));
  return names.filter((n) => present.has(n));
}

const renderedNames = perResource((resource) =>
  resource.fields.filter((f) => f.kind !== 'scalar' || f.rendered).map((f) => f.name),
);

function recordsTable(
  records: Row[],
  resource: ResourceDefinition,
  ctx: PageContext,
  labelledBy = 'records-h',
): Html {
  if (records.length === 0) {
    return markup`<p class="empty">No ${words(resource.plural)} match.</p>`;
  }
  const columns = columnsOf(records, resource);
  return markup`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="${labelledBy}">
    <table>
      <caption class="visually-hidden">
        ${words(resource.plural)}
      </caption>
      <thead>
        <tr>
          ${columns.map((c) => markup`<th scope="col">${c}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${records.map(
          (r) =>
            markup`<tr>
              ${columns.map((c) =>
                c === 'id'
                  ? markup`<th scope="row">
                      <a href="${href(linkTo(ctx, `${resource.path}/${String(r.id)}`))}">${String(r.id)}</a>
                    </th>`
                  : markup`<td>${cell(r[c])}</td>`,
              )}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

// ---------------------------------------------------------------------------------------------
// Messages (probes, bulk answers)

function messageBody(
  message: string,
  records: Row[] | undefined,
  resource: ResourceDefinition | undefined,
  ctx: PageContext,
): Html {
  return markup`<section aria-labelledby="message-h">
    <h2 id="message-h">Message</h2>
    <p class="message">${message}</p>
    ${records && resource ? recordsTable(records, resource, ctx, 'message-h') : undefined}
  </section>`;
}

/**
 * An answer that is no record of a collection (the front door, health): its members as a nested
 * list, each web address a link, so that a person can follow them.
 */
function objectBody(value: Row): Html {
  return markup`<section aria-labelledby="object-h">
    <h2 id="object-h">Contents</h2>
    ${members(value)}
  </section>`;
}

function members(value: Row): Html {
  return markup`<dl class="members">
    ${Object.entries(value).map(
      ([name, member]) =>
        markup`<dt>${name}</dt>
          <dd>${member !== null && typeof member === 'object' && !Array.isArray(member) ? members(member as Row) : memberValue(member)}</dd>`,
    )}
  </dl>`;
}

function memberValue(value: unknown): Html {
  if (typeof value === 'string' && /^https?:\/\//i.test(value) && isSafeUrl(value)) {
    return markup`<a href="${href(value)}">${value}</a>`;
  }
  return cell(value);
}

// ---------------------------------------------------------------------------------------------
// Lists

function listBody(
  page: Page,
  envelope: Envelope,
  resource: ResourceDefinition,
  ctx: PageContext,
): Html {
  const records = envelope.results;
  const summary =
    envelope.count !== undefined
      ? `${envelope.count} ${words(resource.plural)}; page ${envelope.page} of ${Math.max(envelope.total_pages ?? 1, 1)}.`
      : `Page ${envelope.page}.`;
  return markup`<section aria-labelledby="records-h">
      <h2 id="records-h">${words(resource.plural)}</h2>
      <p class="muted">${summary}</p>
      ${recordsTable(records, resource, ctx)} ${pagination(page, envelope, resource, ctx)}
    </section>
    ${queryForm(resource, ctx, true)} ${writeForms(resource, ctx)}`;
}

function bareListBody(records: unknown[], resource: ResourceDefinition, ctx: PageContext): Html {
  return markup`<section aria-labelledby="records-h">
      <h2 id="records-h">${words(resource.plural)}</h2>
      <p class="muted">${records.length} ${words(resource.plural)} (not paginated).</p>
      ${recordsTable(records as Row[], resource, ctx)}
    </section>
    ${queryForm(resource, ctx, false)} ${writeForms(resource, ctx)}`;
}

function pagination(
  page: Page,
  envelope: Envelope,
  resource: ResourceDefinition,
  ctx: PageContext,
): Html {
  const base = ctx.path + (ctx.asked === 'suffix' ? '.html' : '');
  const link = (n: number) => pageUrl(base, ctx.query, page.pageQueryParam, n);
  const item = (n: number, label: string, rel?: string) =>
    markup`<li><a href="${href(link(n))}" ${rel ? markup` rel="${rel}"` : undefined}>${label}</a></li>`;
  const items: Html[] = [];
  const current = envelope.page;
  const last = envelope.total_pages;
  if (last !== undefined) {
    if (current > 1) items.push(item(1, 'First'));
    if (current > 1) items.push(item(Math.min(current - 1, Math.max(last, 1)), 'Previous', 'prev'));
    const from = Math.max(1, Math.min(current - 2, last - 4));
    const to = Math.min(Math.max(last, 1), from + 4);
    for (let n = from; n <= to; n++) {
      items.push(
        n === current
          ? markup`<li><a href="${href(link(n))}" aria-current="page">${n}</a></li>`
          : item(n, String(n)),
      );
    }
    if (page.hasNext) items.push(item(current + 1, 'Next', 'next'));
    if (current < last) items.push(item(last, 'Last'));
  } else {
    if (current > 1) items.push(item(current - 1, 'Previous', 'prev'));
    if (page.hasNext) items.push(item(current + 1, 'Next', 'next'));
  }
  if (items.length === 0) return markup``;
  return markup`<nav class="pages" aria-label="Pages of ${words(resource.plural)}">
    <ul>
      ${items}
    </ul>
  </nav>`;
}

const RANGE: ReadonlySet<ScalarType> = new Set(['integer', 'decimal', 'timestamp']);

/** Every path a list may be filtered and ordered by, with its type. */
const filterPaths = perResource((resource): [string, ScalarType][] => {
  const out: [string, ScalarType][] = [];
  for (const field of resource.fields) {
    if (field.kind === 'scalar') out.push([field.name, field.type]);
    else for (const sub of field.fields) out.push([`${field.name}.${sub.name}`, sub.type]);
  }
  return out;
});

function operators(type: ScalarType): [string, string][] {
  const ops: [string, string][] = [['', '=']];
  if (type !== 'boolean') ops.push(['__in', 'in']);
  if (RANGE.has(type)) ops.push(['__lt', '<'], ['__lte', '≤'], ['__gt', '>'], ['__gte', '≥']);
  if (type === 'string') ops.push(['__contains', 'contains']);
  return ops;
}

/** The GET form of filters, ordering, search, field selection and page size. */
function queryForm(resource: ResourceDefinition, ctx: PageContext, paged: boolean): Html {
  const current = params(ctx.query);
  const action = ctx.path + (ctx.asked === 'suffix' ? '.html' : '');
  const value = (name: string) => current.get(name) ?? '';
  const paths = filterPaths(resource);
  const searchable = resource.fields.some((f) => f.kind === 'scalar' && f.searchable);
  const ordering = value('ordering');
  const orderOptions = paths.flatMap(([path]) => [path, `-${path}`]);
  const filtered = paths.some(([path, type]) =>
    operators(type).some(([op]) => current.has(path + op)),
  );
  const pageSizeParam = resource.pagination?.pageSizeQueryParam ?? 'page_size';
  return markup`<section aria-labelledby="query-h">
    <h2 id="query-h">Filter, order and select</h2>
    <form class="query" method="get" action="${href(action)}" id="query-form">
      ${ctx.asked === 'query' ? markup`<input type="hidden" name="format" value="html" />` : undefined}
      <div class="row">
        ${
          searchable
            ? markup`<p>
                <label for="q-search">Search</label>
                <input id="q-search" name="search" type="search" value="${value('search')}" />
              </p>`
            : undefined
        }
        <p><label for="q-ordering">Ordering</label>
          <select id="q-ordering" name="ordering">
            <option value="">id, ascending (default)</option>
            ${
              ordering && !orderOptions.includes(ordering)
                ? markup`<option value="${ordering}" selected>${ordering}</option>`
                : undefined
            }
            ${orderOptions.map(
              (o) =>
                markup`<option value="${o}" ${o === ordering ? markup` selected` : undefined}>
                  ${o.startsWith('-') ? `${o.slice(1)}, descending` : `${o}, ascending`}
                </option>`,
            )}
          </select></p>
        <p><label for="q-only">Only fields</label>
          <input id="q-only" name="only" value="${value('only')}" aria-describedby="q-fields-hint" /></p>
        <p><label for="q-except">Except fields</label>
          <input id="q-except" name="except" value="${value('except')}" aria-describedby="q-fields-hint" /></p>
        ${
          paged && pageSizeParam
            ? markup`<p>
                <label for="q-page-size">Page size</label>
                <input
                  id="q-page-size"
                  name="${pageSizeParam}"
                  type="number"
                  min="1"
                  value="${value(pageSizeParam)}"
                />
              </p>`
            : undefined
        }
      </div>
      <p id="q-fields-hint" class="muted">Comma-separated, from: ${renderedNames(resource).join(', ')}.</p>
      <details${filtered ? markup` open` : undefined}>
        <summary>Filters</summary>
        <div class="table-wrap">
        <table class="filters">
          <caption class="visually-hidden">Filters by field and operator</caption>
          <thead><tr><th scope="col">Field</th><th scope="col">Operator and value</th></tr></thead>
          <tbody>
            ${paths.map(
              ([path, type]) =>
                markup`<tr>
                  <th scope="row">${path} <span class="muted">(${type})</span></th>
                  <td class="ops">
                    ${operators(type).map(([op, label]) => {
                      const name = path + op;
                      const id = `f-${name.replace(/[^\w-]/g, '-')}`;
                      return markup`<span class="op"><label for="${id}">${label}</label>
                        <input id="${id}" name="${name}" value="${value(name)}" size="8"
                      /></span>`;
                    })}
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
        </div>
      </details>
      <p><button type="submit">Apply</button> <a href="${href(linkTo(ctx, resource.path))}">Clear</a></p>
    </form>
  </section>`;
}

// ---------------------------------------------------------------------------------------------
// Records and writes

function recordBody(record: Row, resource: ResourceDefinition, ctx: PageContext): Html {
  const names = renderedNames(resource).filter((n) => n in record);
  const etag = ctx.headers.find(([name]) => name === 'ETag')?.[1] ?? '';
  const path = `${resource.path}/${String(record.id)}`;
  const writable = ctx.allow.includes('PATCH');
  return markup`<section aria-labelledby="record-h">
      <h2 id="record-h">${resource.label} ${String(record.id)}</h2>
      <div class="table-wrap">
        <table class="record">
          <caption class="visually-hidden">
            Fields of ${resource.label.toLowerCase()} ${String(record.id)}
          </caption>
          <tbody>
            ${names.map(
              (n) =>
                markup`<tr>
                  <th scope="row">${n}</th>
                  <td>${cell(record[n])}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </section>
    ${
      writable
        ? markup`<section aria-labelledby="edit-h">
            <h2 id="edit-h">Edit</h2>
            ${recordForm(resource, 'edit', 'PATCH', path, record, etag, 'Save changes')}
          </section>`
        : undefined
    }
    ${(ctx.actions ?? []).map((action) => actionForm(action, path, etag))}
    ${
      ctx.allow.includes('DELETE')
        ? markup`<section aria-labelledby="delete-h">
            <h2 id="delete-h">Delete</h2>
            <form
              class="write"
              data-method="DELETE"
              data-action="${path}"
              data-etag="${etag}"
              data-confirm="Delete ${resource.label.toLowerCase()} ${String(record.id)}? This cannot be undone."
              data-then="${linkTo(ctx, resource.path)}"
              id="delete-form">
              <p>
                <button type="submit" class="danger">
                  Delete ${resource.label.toLowerCase()} ${String(record.id)}
                </button>
              </p>
              <p class="form-result" role="status" aria-live="polite"></p>
            </form>
          </section>`
        : undefined
    }`;
}

function writeForms(resource: ResourceDefinition, ctx: PageContext): Html {
  if (!ctx.allow.includes('POST')) return markup``;
  const bulk = resource.bulk
    ? markup`<section aria-labelledby="bulk-h">
        <h2 id="bulk-h">Bulk</h2>
        <form class="write raw" data-action="${resource.path}" id="bulk-form">
          <p>
            <label for="bulk-method">Operation</label>
            <select id="bulk-method" name="method">
              <option value="POST">Create (POST an array of records)</option>
              <option value="PATCH">Update (PATCH an array of records with their id)</option>
              <option value="DELETE">Delete (DELETE an array of ids)</option>
            </select>
          </p>
          <p>
            <label for="bulk-type">Body format</label>
            <select id="bulk-type" name="type">
              <option value="application/json">JSON</option>
              <option value="application/xml">XML</option>
            </select>
          </p>
          <p>
            <label for="bulk-body">Body</label>
            <textarea id="bulk-body" name="body" rows="6" spellcheck="false" required>[]</textarea>
          </p>
          <p><button type="submit">Send</button></p>
          <p class="form-result" role="status" aria-live="polite"></p>
        </form>
      </section>`
    : undefined;
  return markup`<section aria-labelledby="create-h">
      <h2 id="create-h">Create ${words(resource.singular)}</h2>
      ${recordForm(resource, 'create', 'POST', resource.path, undefined, '', 'Create')}
    </section>
    ${bulk}`;
}

interface Input {
  name: string;
  type: ScalarType | 'ids';
  required: boolean;
  nullable: boolean;
  maxLength?: number;
  /** The value on the record, for an edit form. */
  initial: unknown;
}

/** The writable fields of a collection, typed from the declaration. */
function inputsOf(resource: ResourceDefinition, record: Row | undefined): Input[] {
  const out: Input[] = [];
  for (const field of resource.fields) {
    if (field.kind === 'scalar' && field.write) {
      out.push({
        name: field.name,
        type: field.type,
        required: field.write.required === true,
        nullable: field.write.nullable === true,
        maxLength: field.write.maxLength,
        initial: record ? currentValue(resource, field, record) : field.write.default,
      });
    } else if (field.kind === 'collection' && field.writeAs) {
      const items = record?.[field.name];
      out.push({
        name: field.writeAs,
        type: 'ids',
        required: false,
        nullable: false,
        initial: Array.isArray(items) ? items.map((i) => (i as Row).id).join(',') : '',
      });
    }
  }
  return out;
}

/** A field's value on a record: a foreign key is read from the reference it is rendered as. */
function currentValue(resource: ResourceDefinition, field: ScalarField, record: Row): unknown {
  if (field.rendered) return record[field.name];
  const reference = resource.fields.find(
    (f): f is Extract<Field, { kind: 'reference' }> =>
      f.kind === 'reference' && f.rootColumn === field.column && f.targetColumn === 'id',
  );
  if (!reference) return undefined;
  const target = record[reference.name] as Row | null | undefined;
  return target ? target.id : null;
}

function recordForm(
  resource: ResourceDefinition,
  prefix: string,
  method: string,
  action: string,
  record: Row | undefined,
  etag: string,
  submit: string,
): Html {
  const inputs = inputsOf(resource, record);
  return markup`<form
    class="write record-form"
    id="${prefix}-form"
    data-method="${method}"
    data-action="${action}"
    ${etag ? markup`data-etag="${etag}"` : undefined}
    novalidate>
    ${inputs.map((input) => fieldInput(prefix, input, record !== undefined))}
    <p><button type="submit">${submit}</button></p>
    <p class="form-result" role="status" aria-live="polite"></p>
  </form>`;
}

function fieldInput(prefix: string, input: Input, edit: boolean): Html {
  const id = `${prefix}-${input.name}`;
  const error = markup`<span class="field-error" id="${id}-error" data-field="${input.name}"></span>`;
  const initial =
    input.initial === null || input.initial === undefined ? '' : String(input.initial as string);
  const isNull = input.initial === null;
  const common = markup`id="${id}" name="${input.name}" data-type="${input.type}"
  data-initial="${edit ? initial : ''}"
  aria-describedby="${id}-error"${input.required && !edit ? markup` required aria-required="true"` : undefined}`;
  let control: Html;
  const hint = {
    ids: ' (ids, comma-separated)',
    decimal: ' (decimal)',
    integer: '',
    timestamp: '',
    string: '',
    boolean: '',
  }[input.type];
  switch (input.type) {
    case 'boolean':
      control = markup`<input
        type="checkbox"
        ${common}
        value="true"
        ${initial === 'true' ? markup` checked` : undefined}
      />`;
      break;
    case 'integer':
      control = markup`<input
        type="number"
        step="1"
        inputmode="numeric"
        ${common}
        value="${initial}"
      />`;
      break;
    case 'decimal':
      control = markup`<input type="text" inputmode="decimal" ${common} value="${initial}" />`;
      break;
    default:
      control =
        (input.maxLength ?? 0) > 255
          ? markup`<textarea ${common} rows="3">${initial}</textarea>`
          : markup`<input
              type="text"
              ${common}
              value="${initial}"
              ${input.maxLength ? markup` maxlength="${input.maxLength}"` : undefined}
            />`;
  }
  const nullBox = input.nullable
    ? markup`<span class="null-box"><input
          type="checkbox"
          id="${id}-null"
          data-null-for="${id}"
          ${isNull && edit ? markup` checked` : undefined}
        />
        <label for="${id}-null">null</label></span>`
    : undefined;
  return markup`<p class="field">
    <label for="${id}">${input.name}${hint}${input.required && !edit ? markup` <span class="muted">(required)</span>` : undefined}</label>
    ${control} ${nullBox} ${error}
  </p>`;
}

function actionForm(action: RecordAction, path: string, etag: string): Html {
  const id = `action-${action.name}`;
  return markup`<section aria-labelledby="${id}-h">
    <h2 id="${id}-h">${action.title}</h2>
    <form
      class="write record-form"
      id="${id}"
      data-method="PATCH"
      data-action="${path}/${action.name}"
      data-etag="${etag}"
      novalidate>
      ${action.fields.map((f) =>
        fieldInput(
          id,
          { name: f.name, type: f.type, required: true, nullable: false, initial: '' },
          false,
        ),
      )}
      <p><button type="submit">${words(action.name)}</button></p>
      <p class="form-result" role="status" aria-live="polite"></p>
    </form>
  </section>`;
}

// ---------------------------------------------------------------------------------------------
// XML, indented

/**
 * The XML document indented one element per line. Its text holds no `<` (the encoder escapes
 * it), so the tags are exactly the `<…>` runs.
 */
export function prettyXml(xml: string): string {
  const tokens = xml.split(/(<[^>]+>)/).filter((t) => t.trim() !== '');
  let depth = 0;
  const lines: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const pad = '  '.repeat(depth);
    if (token.startsWith('<?')) lines.push(token);
    else if (token.startsWith('</')) {
      depth--;
      lines.push('  '.repeat(depth) + token);
    } else if (token.startsWith('<') && token.endsWith('/>')) lines.push(pad + token);
    else if (token.startsWith('<')) {
      const inner = tokens[i + 1];
      const close = tokens[i + 2];
      if (inner !== undefined && !inner.startsWith('<') && close?.startsWith('</')) {
        lines.push(pad + token + inner + close);
        i += 2;
      } else {
        lines.push(pad + token);
        depth++;
      }
    } else lines.push(pad + token);
  }
  return lines.join('\n');
}
