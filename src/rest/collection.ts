import { Database } from '../database/database';
import { ApiError } from './api-error';
import { QueryParams } from './list-query';
import { findRecord, listRecords } from './list';
import { Paginator } from './pagination/paginator';
import { ApiRecord, RecordQuery } from './record-query';
import { RecordWriter, WriterOptions } from './record-writer';
import { Message } from './render';
import { ResourceDefinition } from './resource';

/**
 * The standard actions of a collection, for a service to extend with its own. Each service
 * passes in only what it uses: the database, its paginator and its entity.
 */
export class RecordCollection {
  protected readonly records: RecordQuery;
  protected readonly writer: RecordWriter;

  constructor(
    protected readonly resource: ResourceDefinition,
    protected readonly db: Database,
    private readonly paginator: Paginator,
    options: WriterOptions & { bulk: boolean },
  ) {
    this.records = db.records(resource);
    this.writer = new RecordWriter(resource, db, this.records, options);
    this.bulk = options.bulk;
  }

  /** Whether an array posted to the collection is a bulk create. */
  private readonly bulk: boolean;

  list(params: QueryParams) {
    return listRecords(this.records, this.paginator, params);
  }

  show(id: number) {
    return findRecord(this.records, id);
  }

  /** One record from an object; several (bulk create) from an array. */
  create(body: unknown): Promise<ApiRecord | Message<ApiRecord>> {
    if (!Array.isArray(body)) return this.writer.create(body);
    if (!this.bulk) {
      throw new ApiError(
        400,
        `Request body must be a ${this.resource.singular} object; ${this.resource.plural} have no bulk create.`,
      );
    }
    return this.writer.bulkCreate(body);
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
