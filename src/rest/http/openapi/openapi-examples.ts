/**
 * The examples of the OpenAPI document: a record made from a collection's declaration (its create
 * example, defaults, a fixed time), and each success response encoded as the service encodes it,
 * in JSON, XML and CSV, so an example cannot drift from what the service sends.
 */
import { encodeCsv } from '../../core/output/csv';
import { Field } from '../../core/fields';
import { pascal } from '../../core/names';
import { Page } from '../../core/paginator';
import { Message, renderBody } from '../../core/output/render';
import { ResourceDefinition } from '../../core/resource';
import { OperationContext, OperationSpec } from './openapi';

/**
 * The CSV example of a collection's list or record read, which the document also lists as a
 * `.csv` path; undefined for any other route.
 */
export function csvExample(
  method: string,
  path: string,
  context?: OperationContext,
): string | undefined {
  if (method !== 'get' || !context) return undefined;
  const { resource, paginator } = context;
  const record = exampleRecord(resource);
  if (path === `${resource.path}/{id}`) return encodeCsv(record, resource);
  if (path !== resource.path) return undefined;
  const count = paginator?.pageTotalCount ? 1 : undefined;
  const list = paginator
    ? new Page([record], 1, paginator.pageSize, count, false, 'page')
    : [record];
  return encodeCsv(list, resource);
}

/** The example of a success response, in JSON and in XML (encoded as the service encodes it). */
export function responseExample(
  spec: OperationSpec,
  context?: OperationContext,
): { json: unknown; xml: string } | undefined {
  const success = spec.success[1];
  const url = () => ({ base: `http://localhost:3000${context?.resource.path ?? ''}`, query: '' });
  if (!context) {
    if (success.example === undefined) return undefined;
    const value = success.example;
    return { json: value, xml: renderBody(value, 'xml', undefined, url) };
  }
  const { resource, paginator } = context;
  const example = (result: unknown) => {
    const xml = renderBody(result, 'xml', resource, url);
    const json = JSON.parse(renderBody(result, 'json', resource, url)) as unknown;
    return { json, xml };
  };
  if (success.example !== undefined) return example(success.example);
  const record = exampleRecord(resource);
  const ref = (success.schema as { $ref?: string } | undefined)?.$ref ?? '';
  if (ref.endsWith(`/${pascal(resource.plural)}Page`) && paginator) {
    const count = paginator.pageTotalCount ? 1 : undefined;
    return example(new Page([record], 1, paginator.pageSize, count, false, 'page'));
  }
  if (ref.endsWith('BulkResult')) return example(new Message('Bulk update successful.', [record]));
  if (success.schema?.type === 'array') return example([record]);
  if (ref.endsWith(`/${pascal(resource.singular)}`) || success.schema?.anyOf) {
    return example(record);
  }
  return undefined;
}

const EXAMPLE_TIME = '2024-05-01T12:00:00.000Z';

/** A record as the service renders it, from the declaration and its create example. */
function exampleRecord(resource: ResourceDefinition): Record<string, unknown> {
  const given = resource.examples.create;
  const summary = (fields: Field[]) =>
    Object.fromEntries(
      fields.map((f) => [f.name, f.kind === 'scalar' && f.type === 'integer' ? 1 : 'example']),
    );
  const record: Record<string, unknown> = {};
  for (const field of resource.fields) {
    if (field.kind === 'reference') {
      record[field.name] = summary(field.fields);
    } else if (field.kind === 'collection') {
      record[field.name] = [summary(field.fields)];
    } else if (field.rendered) {
      const write = field.write;
      record[field.name] =
        field.name === 'id'
          ? resource.examples.id
          : field.name in given
            ? given[field.name]
            : write?.default !== undefined
              ? write.default
              : field.type === 'timestamp'
                ? EXAMPLE_TIME
                : write || field.type !== 'string'
                  ? 'example'
                  : null;
    }
  }
  return record;
}
