import { ListQuery, QueryParams, parseListQuery } from '../core/list-query';
import { RecordError } from '../core/errors';
import { ScalarType } from '../core/fields';
import { Page, Paginator } from '../core/paginator';
import { Precondition } from '../core/preconditions';
import { Message } from '../core/render';
import { ResourceDefinition, pathsOf } from '../core/resource';
import { Selection, parseSelection, project } from '../core/selection';
import { SqlDatabase } from './sql-database';
import { ApiRecord, RecordQuery } from './record-query';
import { RecordWriter } from './record-writer';

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

  /** An index request end to end: parse the query, page it, read the records. */
  async list(params: QueryParams): Promise<Page<ApiRecord> | ApiRecord[]> {
    const query: ListQuery = parseListQuery(params, this.records.paths);
    const selection = parseSelection(params, this.resource);
    const request = this.paginator.request(params);
    const withCount = !request.all && this.paginator.countsTotal;
    const window = this.paginator.window(request);
    const result = await this.records.list(query, window, withCount, selection);
    return this.paginator.page(request, result.records, result.count);
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
