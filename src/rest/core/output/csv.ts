/**
 * CSV (RFC 4180): a header row, then one row per record, CRLF line ends, a field quoted when it
 * holds a comma, a quote, CR or LF (its quotes doubled). A reference is flattened into a column
 * per field of it (`user.id`, `user.login`); a to-many relation is one column holding its JSON
 * array. Cells a spreadsheet would run as a formula are escaped (`csvCell`). Errors are not CSV:
 * the HTTP layer answers them in JSON (http/response/renderers.ts).
 */
import { buildEnvelope } from './envelope';
import { QueryParams } from '../list-query';
import { Page } from '../paginator';
import {
  Failure,
  JSON_RENDERER,
  Message,
  RecordStream,
  RenderContext,
  Renderer,
  ShapelessBody,
} from './render';
import { ResourceDefinition, perResource } from '../resource';
import { parseSelection } from '../selection';

export const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

/** One column: its header and how a record gives its value. */
export interface CsvColumn {
  name: string;
  /** The top-level field it comes from (what `only`/`except` keep or drop). */
  field: string;
  value(record: Record<string, unknown>): unknown;
}

/** The columns of a collection's records, in declared order. */
export const csvColumnsOf = perResource((resource: ResourceDefinition): CsvColumn[] =>
  resource.fields.flatMap((field): CsvColumn[] => {
    switch (field.kind) {
      case 'scalar':
        return field.rendered ? [column(field.name)] : [];
      case 'reference':
        return field.fields.map((sub) => ({
          name: `${field.name}.${sub.name}`,
          field: field.name,
          value: (record) => (record[field.name] as Record<string, unknown> | null)?.[sub.name],
        }));
      case 'collection':
        return [column(field.name)];
    }
  }),
);

function column(name: string): CsvColumn {
  return { name, field: name, value: (record) => record[name] };
}

/** The columns of a record with no declaration: its keys, nested objects flattened one level. */
function columnsOfValue(record: Record<string, unknown>): CsvColumn[] {
  return Object.entries(record).flatMap(([name, value]): CsvColumn[] =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.keys(value).map((sub) => ({
          name: `${name}.${sub}`,
          field: name,
          value: (r) => (r[name] as Record<string, unknown> | null)?.[sub],
        }))
      : [column(name)],
  );
}

/** The columns an answer has: the declaration's (those the query selects), else the first record's. */
export function csvColumns(
  resource: ResourceDefinition | undefined,
  records: readonly Record<string, unknown>[],
  query: string,
): CsvColumn[] {
  if (!resource) return records.length > 0 ? columnsOfValue(records[0]) : [];
  const selection = parseSelection(queryParams(query), resource);
  const columns = csvColumnsOf(resource);
  return selection ? columns.filter((c) => selection.fields.includes(c.field)) : columns;
}

function queryParams(query: string): QueryParams {
  const search = new URLSearchParams(query);
  const params: QueryParams = {};
  for (const name of new Set(search.keys())) {
    const values = search.getAll(name);
    params[name] = values.length === 1 ? values[0] : values;
  }
  return params;
}

/** A cell a spreadsheet would read as a formula (or a control character it strips before one). */
const FORMULA = /^[=+\-@\t\r]/;
/** A number as text: a spreadsheet reads it as the number, never as a formula. */
const NUMBER = /^[+-]?\d+(\.\d+)?$/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One field as CSV: empty for null, JSON for an array or object, and text that starts with `=`,
 * `+`, `-`, `@`, a tab or a CR prefixed with `'` (OWASP's advice against CSV injection), unless
 * it is a plain number such as `-3.5`; quoted when RFC 4180 requires it.
 *
 * A phone number in E.164 (`+15550100`: `+` and digits) is such a number and is left as it is. A
 * written one (`+1 555 0100`, `+1-555-010-0100`) is escaped: a spreadsheet would read it as a
 * formula (`+1-555-010-0100` shows -664), and OWASP names no exception; JSON and XML carry it raw
 * (docs/interface.md, CSV).
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (FORMULA.test(text) && !NUMBER.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One row: its cells joined, CRLF-terminated. */
export function csvRow(cells: readonly unknown[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export function csvHeader(columns: readonly CsvColumn[]): string {
  return csvRow(columns.map((c) => c.name));
}

export function csvRecords(
  columns: readonly CsvColumn[],
  records: readonly Record<string, unknown>[],
): string {
  let out = '';
  for (const record of records) out += csvRow(columns.map((c) => c.value(record)));
  return out;
}

/** The records an answer holds: a page's, a list, a bulk answer's, one record; a message alone. */
function recordsOf(result: unknown): Record<string, unknown>[] {
  if (result instanceof Page) return result.results as Record<string, unknown>[];
  if (result instanceof Message) {
    return result.records
      ? (result.records as Record<string, unknown>[])
      : [{ message: result.message }];
  }
  if (result instanceof ShapelessBody) return recordsOf(result.value);
  if (Array.isArray(result)) return result as Record<string, unknown>[];
  return [result as Record<string, unknown>];
}

/**
 * `Link` for a page: CSV has no envelope, so its next and previous pages (as JSON's `next` and
 * `previous`, every other parameter kept) travel in the header, `rel="next"` and `rel="prev"`.
 */
export function pageLinks(page: Page, base: string, query: string): string | undefined {
  const { next, previous } = buildEnvelope(page, base, query);
  const links: string[] = [];
  if (next) links.push(`<${next}>; rel="next"`);
  if (previous) links.push(`<${previous}>; rel="prev"`);
  return links.length > 0 ? links.join(', ') : undefined;
}

/** An answer as CSV: the header row and its records, the columns `query` selects. */
export function encodeCsv(
  result: unknown,
  resource: ResourceDefinition | undefined,
  query = '',
): string {
  const records = recordsOf(result);
  // Messages and bodies without a declaration (a probe's `{message}`) show their own keys.
  const declared = result instanceof Message && !result.records ? undefined : resource;
  const columns = csvColumns(declared, records, query);
  return csvHeader(columns) + csvRecords(columns, records);
}

/**
 * `Content-Disposition` of a CSV answer: a download, named after its collection
 * (`attachment; filename="marbles.csv"`), so that a browser saves it rather than showing it.
 */
export function csvDisposition(resource: ResourceDefinition | undefined): string {
  return `attachment; filename="${resource?.plural ?? 'records'}.csv"`;
}

/** An answer as CSV, a page's next and previous in `Link`, a download's name. */
function renderCsv(result: unknown, { resource, request, headers }: RenderContext): string {
  headers['Content-Disposition'] = csvDisposition(resource);
  const { base, query } = request.url();
  if (result instanceof Page) {
    const link = pageLinks(result, base, query);
    if (link) headers.Link = link;
  }
  return encodeCsv(result, resource, query);
}

/** A RecordStream as CSV: the header row, then each batch's rows as it is read. */
async function* streamCsv(
  result: RecordStream,
  { resource, request }: RenderContext,
): AsyncGenerator<string> {
  const columns = csvColumns(resource, result.first, request.url().query);
  yield csvHeader(columns);
  for await (const batch of result.batches())
    if (batch.length > 0) yield csvRecords(columns, batch);
}

/** CSV for reads; its errors are JSON (a spreadsheet has no place for a message). */
export const CSV_RENDERER: Renderer = {
  contentType: CSV_TYPE,
  result: renderCsv,
  stream: streamCsv,
  error: (failure: Failure) => JSON_RENDERER.error(failure),
};
