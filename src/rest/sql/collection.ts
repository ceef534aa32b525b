import { ListQuery, QueryParams, parseListQuery } from '../core/list-query';
import { RecordError } from '../core/errors';
import { Page, Paginator } from '../core/paginator';
import { Message } from '../core/render';
import { ResourceDefinition } from '../core/resource';
import { SqlDatabase } from './port';
import { ApiRecord, RecordQuery } from './record-query';
import { RecordWriter } from './record-writer';

/**
 * The standard actions of a collection, for a service to extend with its own: reads through the
 * collection's compiled queries, writes through its writer. A service passes in only what it
 * uses: its declaration, the database and its paginator.
 */
export class RecordCollection {
  protected readonly records: RecordQuery;
  protected readonly writer: RecordWriter;

  constructor(
    protected readonly resource: ResourceDefinition,
    db: SqlDatabase,
    private readonly paginator: Paginator,
  ) {
    this.records = new RecordQuery(resource, db);
    this.writer = new RecordWriter(resource, db, this.records);
  }

  /** An index request end to end: parse the query, page it, read the records. */
  async list(params: QueryParams): Promise<Page<ApiRecord> | ApiRecord[]> {
    const query: ListQuery = parseListQuery(params, this.records.paths);
    const request = this.paginator.request(params);
    const withCount = !request.all && this.paginator.countsTotal;
    const result = await this.records.list(query, this.paginator.window(request), withCount);
    return this.paginator.page(request, result.records, result.count);
  }

  /** One record, or "Marble 7 not found." */
  async show(id: number): Promise<ApiRecord> {
    const record = await this.records.findById(id);
    if (!record) throw RecordError.notFound(this.resource.label, id);
    return record;
  }

  /** One record from an object; several (bulk create) from an array. */
  create(body: unknown): Promise<ApiRecord | Message<ApiRecord>> {
    return this.writer.createAny(body);
  }

  update(id: number, body: unknown) {
    return this.writer.update(id, body);
  }

  destroy(id: number) {
    return this.writer.destroy(id);
  }

  updateAll(body: unknown) {
    return this.writer.updateAll(body);
  }

  destroyAll(body: unknown) {
    return this.writer.destroyAll(body);
  }
}
