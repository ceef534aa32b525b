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

export function recordsTable(
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
