/** The body of a list's page: its records, their pages, the query form and the write forms. */
import { pageUrl } from '../../core/output/envelope';
import { words } from '../../core/names';
import { Page } from '../../core/paginator';
import { ResourceDefinition } from '../../core/resource';
import { Envelope, PageContext, Row } from './html-context';
import { writeForms } from './html-forms';
import { columnOrdering, queryForm } from './html-query-form';
import { recordsTable } from './html-table';
import { Html, href, markup } from './html-template';

export function listBody(
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
  const ordering = columnOrdering(resource, ctx, page.pageQueryParam);
  return markup`<section class="list" aria-labelledby="records-h">
      <div class="list-head">
        <h2 id="records-h">${words(resource.plural)}</h2>
        <p class="muted">${summary}</p>
      </div>
      ${queryForm(resource, ctx, page.pageQueryParam)}
      ${recordsTable(records, resource, ctx, { ordering })}
      ${pagination(page, envelope, resource, ctx)}
    </section>
    ${writeForms(resource, ctx)}`;
}

export function bareListBody(
  records: unknown[],
  resource: ResourceDefinition,
  ctx: PageContext,
): Html {
  const ordering = columnOrdering(resource, ctx);
  return markup`<section class="list" aria-labelledby="records-h">
      <div class="list-head">
        <h2 id="records-h">${words(resource.plural)}</h2>
        <p class="muted">${records.length} ${words(resource.plural)} (not paginated).</p>
      </div>
      ${queryForm(resource, ctx, undefined)}
      ${recordsTable(records as Row[], resource, ctx, { ordering })}
    </section>
    ${writeForms(resource, ctx)}`;
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
