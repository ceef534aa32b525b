/**
 * The query of a list, as a person changes it: the GET form (search, ordering, field selection,
 * page size, filters by field and operator) above the table, collapsed, and the links of the
 * table's column headers that order the list by their column.
 */
import { ScalarType } from '../../core/fields';
import { ORDERING_PARAM } from '../../core/list-query';
import { ResourceDefinition, pathsOf, perResource } from '../../core/resource';
import { PageContext } from './html-context';
import { linkTo, params, queryWithout } from './html-links';
import { ColumnOrder, renderedNames } from './html-table';
import { Html, href, markup } from './html-template';

const RANGE: ReadonlySet<ScalarType> = new Set(['integer', 'decimal', 'timestamp']);

/** Every path a list may be filtered and ordered by, with its type (what the list reads). */
const filterPaths = perResource((resource) => [...pathsOf(resource)]);

/**
 * The ordering link of each column the list can be ordered by: `ordering=<column>`, or
 * `ordering=-<column>` when the list is ordered by it ascending already, with the rest of the
 * query kept but its page (the new order starts at page 1). `sort` says how the list is ordered
 * now: by the first field of `ordering` the list knows, by id ascending when there is none.
 */
export function columnOrdering(
  resource: ResourceDefinition,
  ctx: PageContext,
  pageParam?: string,
): (column: string) => ColumnOrder | undefined {
  const orderable = pathsOf(resource);
  const current = (params(ctx.query).get(ORDERING_PARAM) ?? '')
    .split(',')
    .map((part) => part.trim())
    .find((part) => orderable.has(part.replace(/^-/, '')));
  const [by, descending] = current
    ? [current.replace(/^-/, ''), current.startsWith('-')]
    : ['id', false];
  const base = ctx.path + (ctx.asked === 'suffix' ? '.html' : '');
  const kept = queryWithout(ctx.query, pageParam ? [ORDERING_PARAM, pageParam] : [ORDERING_PARAM]);
  return (column) => {
    if (!orderable.has(column)) return undefined;
    const sort = column !== by ? undefined : descending ? 'descending' : 'ascending';
    const next = sort === 'ascending' ? `-${column}` : column;
    const query = [...kept, `${ORDERING_PARAM}=${encodeURIComponent(next)}`].join('&');
    return { href: `${base}?${query}`, sort };
  };
}

function operators(type: ScalarType): [string, string][] {
  const ops: [string, string][] = [['', '=']];
  if (type !== 'boolean') ops.push(['__in', 'in']);
  if (RANGE.has(type)) ops.push(['__lt', '<'], ['__lte', '≤'], ['__gt', '>'], ['__gte', '≥']);
  if (type === 'string') ops.push(['__contains', 'contains']);
  return ops;
}

/** The GET form of filters, ordering, search, field selection and page size. */
export function queryForm(
  resource: ResourceDefinition,
  ctx: PageContext,
  pageParam: string | undefined,
): Html {
  const paged = pageParam !== undefined;
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
  // What the list was asked for, in the summary of the collapsed form.
  const applied = [...current].filter(([name]) => name !== pageParam && name !== 'format');
  return markup`<details class="query" id="query">
    <summary>
      Search, filter and order${
        applied.length > 0
          ? markup`<span class="applied">:
              ${applied.map(([name, v]) => `${name}=${v}`).join(' · ')}</span>`
          : undefined
      }
    </summary>
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
  </details>`;
}
