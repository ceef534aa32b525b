/**
 * The CSV reads in the OpenAPI document. Each list and record read of a collection has a `.csv`
 * twin path answering `text/csv` alone, rather than a third media type on the read itself: a
 * generated client (openapi-fetch) types a response as the union of its media types, and a CSV
 * string in that union would take `page.results` away from every typed caller.
 */
import { CSV_TYPE } from '../../core/output/csv';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DESCRIPTION =
  'The same read in CSV (RFC 4180): a header row, one row per record, a reference as a column per ' +
  'field (`user.id`, `user.login`), a to-many list as its JSON; a cell that starts with `=`, `+`, ' +
  "`-`, `@`, a tab or a CR (and is not a plain number) starts with `'`. The same filters, ordering, " +
  'selection and pages; `format=csv` or `Accept: text/csv` on the read itself answer the same. ' +
  'Errors are JSON.';

/** `Link` of a page in CSV, which has no envelope for next and previous. */
/** A CSV answer is a download named after its collection. */
const DISPOSITION = {
  description: 'A download, named after the collection: `attachment; filename="marbles.csv"`.',
  schema: { type: 'string' },
};

const LINK = {
  description: 'The next and previous pages: `<url>; rel="next", <url>; rel="prev"`.',
  schema: { type: 'string' },
};

/** The `.csv` twin of a read's operation object, with `example` as its body. */
export function csvOperation(operation: Json, example: string): Json {
  const [[status, success], ...errors] = Object.entries(operation.responses as Json);
  const paged = /Page$/.test(success.content?.['application/json']?.schema?.$ref ?? '');
  const headers = {
    ...success.headers,
    ...(paged ? { Link: LINK } : {}),
    'Content-Disposition': DISPOSITION,
  };
  return {
    ...operation,
    summary: `${operation.summary} (CSV)`,
    description: DESCRIPTION,
    operationId: `${operation.operationId}Csv`,
    parameters: (operation.parameters as Json[]).filter(
      (p) => p.$ref !== '#/components/parameters/Format',
    ),
    responses: {
      [status]: {
        description: success.description,
        headers,
        content: { [CSV_TYPE.split(';')[0]]: { schema: { type: 'string' }, example } },
      },
      ...Object.fromEntries(errors),
    },
  };
}
