/** The table of a list's records, and how one value shows in a cell. */
import { words } from '../../core/names';
import { ResourceDefinition, perResource } from '../../core/resource';
import { PageContext, Row } from './html-context';
import { linkTo } from './html-links';
import { Html, href, join, markup } from './html-template';

export function cell(value: unknown): Html {
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

export const renderedNames = perResource((resource) =>
  resource.fields.filter((f) => f.kind !== 'scalar' || f.rendered).map((f) => f.name),
);

/** A header that orders the list by its column: the link, and the order it is in now. */
export interface ColumnOrder {
  href: string;
  /** For `aria-sort`: whether the list is ordered by this column now, and how. */
  sort?: 'ascending' | 'descending';
}

export interface TableOptions {
  /** The id of the heading that names the table's region. */
  labelledBy?: string;
  /** The ordering link of a column's header; none for a column the list cannot be ordered by. */
  ordering?: (column: string) => ColumnOrder | undefined;
}

/**
 * Columns whose values are short and read as one token (numbers, timestamps, flags, references):
 * their cells do not wrap, so a row stays one line and a timestamp is never cut at its hyphens.
 */
const unwrapped = perResource(
  (resource) =>
    new Set(
      resource.fields
        .filter((f) => f.kind === 'reference' || (f.kind === 'scalar' && f.type !== 'string'))
        .map((f) => f.name),
    ),
);

/**
 * Columns of strings (a name, a description): their line breaks are content (an address, a list
 * of points), kept visible on the page (`td.text`: `white-space: pre-line`), in a list as on a
 * record's page.
 */
const texts = perResource(
  (resource) =>
    new Set(
      resource.fields.filter((f) => f.kind === 'scalar' && f.type === 'string').map((f) => f.name),
    ),
);

/**
 * The cell of a record's value in a column: on one line when the column's values are short, its
 * line breaks kept when the column holds strings.
 */
export function valueCell(resource: ResourceDefinition, column: string, value: unknown): Html {
  if (unwrapped(resource).has(column)) return markup`<td class="nowrap">${cell(value)}</td>`;
  if (texts(resource).has(column)) return markup`<td class="text">${cell(value)}</td>`;
  return markup`<td>${cell(value)}</td>`;
}

/**
 * A field's name that may break after its underscores (`is_` / `discounted`): a narrow column
 * for a short value in a list, and room for the value on a record's page on a phone.
 */
export function fieldName(column: string): Html {
  return join(
    column.split(/(?<=_)/).map((part) => markup`${part}`),
    markup`<wbr />`,
  );
}

function header(column: string, order: ColumnOrder | undefined): Html {
  const name = fieldName(column);
  if (!order) return markup`<th scope="col">${name}</th>`;
  return markup`<th scope="col"${order.sort ? markup` aria-sort="${order.sort}"` : undefined}>
    <a href="${href(order.href)}">${name}</a>
  </th>`;
}

export function recordsTable(
  records: Row[],
  resource: ResourceDefinition,
  ctx: PageContext,
  { labelledBy = 'records-h', ordering }: TableOptions = {},
): Html {
  if (records.length === 0) {
    return markup`<p class="empty">No ${words(resource.plural)} match.</p>`;
  }
  const columns = columnsOf(records, resource);
  return markup`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="${labelledBy}">
    <table class="records">
      <caption class="visually-hidden">
        ${words(resource.plural)}
      </caption>
      <thead>
        <tr>
          ${columns.map((c) => header(c, ordering?.(c)))}
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
                  : valueCell(resource, c, r[c]),
              )}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
