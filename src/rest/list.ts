import { ApiError } from './api-error';
import { InvalidQueryError, QueryParams, parseListQuery } from './list-query';
import { Page, Paginator } from './pagination/paginator';
import { ApiRecord, RecordQuery } from './record-query';

/** An index request end to end: parse the query, page it, read the records. */
export async function listRecords(
  records: RecordQuery,
  paginator: Paginator,
  params: QueryParams,
): Promise<Page<ApiRecord> | ApiRecord[]> {
  let query;
  try {
    query = parseListQuery(params, records.paths);
  } catch (error) {
    if (error instanceof InvalidQueryError) throw new ApiError(400, error.message, error.errors);
    throw error;
  }
  const request = paginator.request(params);
  const withCount = !request.all && paginator.countsTotal;
  const result = await records.list(query, paginator.window(request), withCount);
  return paginator.page(request, result.records, result.count);
}

/** One record, or 404 "Marble 7 not found." */
export async function findRecord(records: RecordQuery, id: number): Promise<ApiRecord> {
  const record = await records.findById(id);
  if (!record) throw ApiError.notFound(records.label, id);
  return record;
}
