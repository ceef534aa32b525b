/**
 * A record's page body and the write forms, typed from the collection's declaration: create,
 * edit, delete, bulk and the record actions. The script (assets/browsable.js) sends them.
 */
import { Field, ScalarField, ScalarType } from '../../core/fields';
import { words } from '../../core/names';
import { ResourceDefinition } from '../../core/resource';
import { PageContext, RecordAction, Row } from './html-context';
import { linkTo } from './html-links';
import { fieldName, renderedNames, valueCell } from './html-table';
import { Html, markup } from './html-template';

export function recordBody(record: Row, resource: ResourceDefinition, ctx: PageContext): Html {
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
                  <th scope="row">${fieldName(n)}</th>
                  ${valueCell(resource, n, record[n])}
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

export function writeForms(resource: ResourceDefinition, ctx: PageContext): Html {
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
