import {
  FORMAT_PARAM,
  IgnoredParams,
  ListQuery,
  QueryParams,
  markIgnored,
  UnknownQueryError,
  parseListQuery,
  unknownParams,
} from '../core/list-query';
import { RecordError } from '../core/errors';
import { ScalarType } from '../core/fields';
import { Page, Paginator } from '../core/paginator';
import { Precondition } from '../core/preconditions';
import { Message, RecordStream } from '../core/output/render';
import { ResourceDefinition, pathsOf } from '../core/resource';
import {
  EXCEPT_PARAM,
  FIELDS_PARAM,
  ONLY_PARAM,
  Selection,
  parseSelection,
  project,
} from '../core/selection';
import { SqlDatabase } from '../db/sql-database';
import { ApiRecord, RecordQuery } from './record-query';
import { RecordWriter } from './record-writer';

export interface ListOptions {
  /** The format writes records as it reads them (CSV): the whole filtered set is a RecordStream. */
  streamed?: boolean;
  /** STRICT_QUERY: an unknown parameter, operator or ordering field is a 400, not ignored. */
  strict?: boolean;
}

/** Records a streamed list reads per statement. */
const STREAM_BATCH = 500;

/**
 * What a collection's module knows of it, in one object (`CollectionModule.forFeature` provides
 * it): its declaration, its paginator and the paths a client may filter and order by. Its
 * service, its controller and the OpenAPI document read it.
 */
export class CollectionContext {
  /** The paths a client may filter and order by, with their types. */
  readonly paths: ReadonlyMap<string, ScalarType>;

  constructor(
    readonly resource: ResourceDefinition,
    readonly paginator: Paginator,
  ) {
    this.paths = pathsOf(resource);
  }
}

/**
 * The standard actions of a collection, for a service to extend with its own: reads through the
 * collection's compiled queries, writes through its writer. A service passes in its context and
 * the database: `constructor(context: CollectionContext, db: SqlDatabase)`.
 */
export class RecordCollection {
  protected readonly resource: ResourceDefinition;
  protected readonly paginator: Paginator;
  protected readonly records: RecordQuery;
  protected readonly writer: RecordWriter;

  constructor(context: CollectionContext, db: SqlDatabase) {
    this.resource = context.resource;
    this.paginator = context.paginator;
    this.records = new RecordQuery(this.resource, db);
    this.writer = new RecordWriter(this.resource, db, this.records);
  }

  /**
   * An index request end to end: parse the query, page it, read the records, marked with the
   * query parameters it ignored (`markIgnored`). With `streamed` (a format that writes records as
   * it reads them), a request for the whole filtered set answers a RecordStream: the ordered ids
   * first, then the records in batches.
   */
  async list(
    params: QueryParams,
    { streamed = false, strict = false }: ListOptions = {},
  ): Promise<Page<ApiRecord> | ApiRecord[] | RecordStream<ApiRecord>> {
    const query: ListQuery = parseListQuery(params, this.records.paths);
    const selection = parseSelection(params, this.resource);
    const ignored = this.ignored(params);
    if (strict && Object.keys(ignored).length > 0) throw new UnknownQueryError(ignored);
    // STRICT_QUERY: a page or page size that is not one is a 400, not page 1 or the default.
    const request = strict ? this.paginator.strictRequest(params) : this.paginator.request(params);
    if (request.all && streamed) return markIgnored(await this.stream(query, selection), ignored);
    const withCount = !request.all && this.paginator.countsTotal;
    const window = this.paginator.window(request);
    const result = await this.records.list(query, window, withCount, selection);
    return markIgnored(this.paginator.page(request, result.records, result.count), ignored);
  }

  /** The parameters of a list's query it does not know: ignored, or a 400 with STRICT_QUERY. */
  ignored(params: QueryParams): IgnoredParams {
    const options = this.paginator.options;
    // In the order an error message lists them: paging, selection, format.
    const known = new Set<string>();
    if (options) known.add(options.pageQueryParam);
    if (options?.pageSizeQueryParam) known.add(options.pageSizeQueryParam);
    for (const name of [ONLY_PARAM, FIELDS_PARAM, EXCEPT_PARAM, FORMAT_PARAM]) known.add(name);
    return unknownParams(params, this.records.paths, known);
  }

  private async stream(query: ListQuery, selection?: Selection): Promise<RecordStream<ApiRecord>> {
    const ids = await this.records.orderedIds(query);
    const read = (from: number) =>
      this.records.byIdsInOrder(ids.slice(from, from + STREAM_BATCH), query, selection);
    const first = await read(0);
    return new RecordStream(first, async function* () {
      for (let from = STREAM_BATCH; from < ids.length; from += STREAM_BATCH) yield await read(from);
    });
  }

  /** One record (only its selected fields), or "Marble 7 not found." */
  async show(id: number, params: QueryParams = {}): Promise<ApiRecord> {
    const record = await this.records.findById(id, parseSelection(params, this.resource));
    if (!record) throw RecordError.notFound(this.resource.label, id);
    return record;
  }

  /** One record from an object; several (bulk create) from an array. */
  async create(body: unknown, params: QueryParams = {}): Promise<ApiRecord | Message<ApiRecord>> {
    const selection = parseSelection(params, this.resource);
    return selected(await this.writer.createAny(body), selection);
  }

  /** With `condition` (If-Match), only the version it names is changed, else 412. */
  update(id: number, body: unknown, condition?: Precondition) {
    return this.writer.update(id, body, condition);
  }

  destroy(id: number, condition?: Precondition) {
    return this.writer.destroy(id, condition);
  }

  async updateAll(body: unknown, params: QueryParams = {}) {
    const selection = parseSelection(params, this.resource);
    return selected(await this.writer.updateAll(body), selection);
  }

  async destroyAll(body: unknown, params: QueryParams = {}) {
    const selection = parseSelection(params, this.resource);
    return selected(await this.writer.destroyAll(body), selection);
  }
}

/** The records of a bulk response with only the selected fields; a single record as it is. */
function selected<T extends ApiRecord | Message<ApiRecord>>(
  result: T,
  selection: Selection | undefined,
): T {
  if (!selection || !(result instanceof Message) || !result.records) return result;
  return new Message(result.message, project(result.records, selection)) as T;
}
