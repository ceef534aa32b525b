import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueryParams } from '../rest/list-query';
import { findRecord, listRecords } from '../rest/list';
import { Paginator } from '../rest/pagination/paginator';
import { RecordQuery } from '../rest/record-query';
import { recordQueryFor } from '../rest/typeorm';
import { MARBLES } from './marbles.resource';

@Injectable()
export class MarblesService {
  private readonly records: RecordQuery;

  constructor(
    dataSource: DataSource,
    private readonly paginator: Paginator,
  ) {
    this.records = recordQueryFor(MARBLES, dataSource);
  }

  list(params: QueryParams) {
    return listRecords(this.records, this.paginator, params);
  }

  show(id: number) {
    return findRecord(this.records, id);
  }
}
