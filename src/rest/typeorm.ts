import { DataSource } from 'typeorm';
import { RecordQuery } from './record-query';
import { ResourceDefinition } from './resource';

/** A collection's compiled queries, run through the application's TypeORM DataSource. */
export function recordQueryFor(resource: ResourceDefinition, dataSource: DataSource): RecordQuery {
  const dialect = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
  return new RecordQuery(
    resource,
    dialect,
    (name) => dataSource.driver.escape(name),
    (sql, parameters) => dataSource.query(sql, parameters),
  );
}
