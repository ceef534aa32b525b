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
import { words } from '../../core/names';
import { ResourceDefinition } from '../../core/resource';
import { Bodies, DOCS, PageContext, PageData, Row, statusLine } from './html-context';
import { layout } from './html-layout';
import { linkTo } from './html-links';
import { bareListBody, listBody } from './html-list';
import { feedBody } from './html-feed';
import { recordBody } from './html-forms';
import { cell, recordsTable } from './html-table';
import { Html, href, isSafeUrl, markup } from './html-template';

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
  if (data.kind === 'object') {
    body = markup`${objectBody(data.value, ctx)}${exampleForm(data.value, ctx)}`;
  }
  if (data.kind === 'feed') body = feedBody(data.page, ctx);
  return layout(ctx, resource, body, bodies.json, bodies.xml);
}

/**
 * The page of an error answer: its message, each field's problems beside the field's name, and
 * the links the answer offers (its `Link` header's, by their titles: where to start again).
 */
export function errorPage(
  error: { message: string; errors?: unknown },
  resource: ResourceDefinition | undefined,
  ctx: PageContext,
  bodies: Bodies,
  links: { href: string; title: string }[] = [],
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
    ${
      links.length > 0
        ? markup`<ul class="error-links">
            ${links.map((l) => markup`<li><a href="${href(l.href)}">${l.title}</a></li>`)}
          </ul>`
        : undefined
    }
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

function messageBody(
  message: string,
  records: Row[] | undefined,
  resource: ResourceDefinition | undefined,
  ctx: PageContext,
): Html {
  return markup`<section aria-labelledby="message-h">
    <h2 id="message-h">Message</h2>
    <p class="message">${message}</p>
    ${records && resource ? recordsTable(records, resource, ctx, { labelledBy: 'message-h' }) : undefined}
  </section>`;
}

/**
 * An answer that is no record of a collection (the front door, health, the webhook
 * subscriptions): its members as a nested list, each web address a link, a list of objects as a
 * table (in `results`, a row with an `id` links to its own page, `<this path>/<id>`), and the
 * titled links of its `Link` header, so that a person can follow them.
 */
/**
 * A route of no collection that takes a POST and describes it with an `example` body (atomic
 * operations, `GET /api/operations`): a form that sends a JSON or XML body there, the example
 * first, and shows the answer on the page (`data-show`) rather than reloading it.
 */
function exampleForm(value: Row, ctx: PageContext): Html | undefined {
  if (!ctx.allow.includes('POST') || value.example === undefined) return undefined;
  const action = ctx.path.replace(/\.(json|xml|html)$/, '');
  return markup`<section aria-labelledby="send-h">
    <h2 id="send-h">Send</h2>
    <form class="write raw" data-action="${action}" data-show="" id="send-form">
      <input type="hidden" name="method" value="POST">
      <p>
        <label for="send-type">Body format</label>
        <select id="send-type" name="type">
          <option value="application/json">JSON</option>
          <option value="application/xml">XML</option>
        </select>
      </p>
      <p>
        <label for="send-body">Body</label>
        <textarea id="send-body" name="body" rows="14" spellcheck="false" required>${JSON.stringify(value.example, null, 2)}</textarea>
      </p>
      <p><button type="submit">Send</button></p>
      <div class="form-result" role="status" aria-live="polite"></div>
    </form>
  </section>`;
}

function objectBody(value: Row, ctx: PageContext): Html {
  const links = ctx.links ?? [];
  return markup`<section aria-labelledby="object-h">
    <h2 id="object-h">Contents</h2>
    ${members(value, ctx)}
    ${
      links.length > 0
        ? markup`<ul class="related">
            ${links.map((l) => markup`<li><a href="${href(l.href)}">${l.title}</a></li>`)}
          </ul>`
        : undefined
    }
  </section>`;
}

function members(value: Row, ctx: PageContext): Html {
  return markup`<dl class="members">
    ${Object.entries(value).map(
      ([name, member]) =>
        markup`<dt>${name}</dt>
          <dd>${memberOf(name, member, ctx)}</dd>`,
    )}
  </dl>`;
}

function memberOf(name: string, member: unknown, ctx: PageContext): Html {
  if (Array.isArray(member) && member.length > 0 && member.every(isRow)) {
    return rowsTable(name, member, name === 'results' ? ctx : undefined);
  }
  if (Array.isArray(member) && member.length === 0 && name === 'results') {
    return markup`<span class="muted">none</span>`;
  }
  if (isRow(member)) return members(member, ctx);
  return memberValue(member);
}

function isRow(value: unknown): value is Row {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Rows of an answer as a table; with `linked`, an `id` links to `<the page's path>/<id>`. */
function rowsTable(name: string, rows: Row[], linked: PageContext | undefined): Html {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const base = linked?.path.replace(/\/$/, '');
  return markup`<div class="table-wrap" tabindex="0" role="region" aria-label="${name}">
    <table class="records">
      <thead>
        <tr>
          ${columns.map((c) => markup`<th scope="col">${c}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (row) =>
            markup`<tr>
              ${columns.map((c) =>
                c === 'id' && base !== undefined && typeof row.id === 'number'
                  ? markup`<th scope="row"><a href="${href(linkTo(linked!, `${base}/${row.id}`))}">${String(row.id)}</a></th>`
                  : markup`<td>${isRow(row[c]) ? cell(row[c]) : memberValue(row[c])}</td>`,
              )}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function memberValue(value: unknown): Html {
  if (typeof value === 'string' && /^https?:\/\//i.test(value) && isSafeUrl(value)) {
    return markup`<a href="${href(value)}">${breakable(value)}</a>`;
  }
  return cell(value);
}

/** A web address's text with a break opportunity (<wbr>) after each `/`, `?` and `&` but `//`'s. */
function breakable(url: string): Html {
  const parts = url.split(/(?<=[/?&])(?!\/)/);
  return markup`${parts.map((part, i) => (i === 0 ? part : markup`<wbr />${part}`))}`;
}
