/**
 * The query parameters the OpenAPI document gives a route of a collection: field selection
 * (`only`, `except`, `fields`), the filters of an index over every filterable path, and the page
 * parameters of the service's paginator.
 */
import { ScalarType } from '../../core/fields';
import { EXCEPT_PARAM, FIELDS_PARAM, ONLY_PARAM, selectableFields } from '../../core/selection';
import { PaginatorOptions } from '../../core/paginator';
import { ResourceDefinition } from '../../core/resource';
import { Schema } from './openapi-schemas';

export interface ParameterSpec {
  name: string;
  in: 'query' | 'path' | 'header';
  description?: string;
  required?: boolean;
  schema: Schema;
  example?: unknown;
}

/** Field selection (`only`, `except`), on index, show and the bulk writes. */
export function selectionParameters(resource: ResourceDefinition): ParameterSpec[] {
  const names = selectableFields(resource).join(', ');
  const list = (description: string): ParameterSpec['schema'] => ({
    type: 'string',
    pattern: '^[a-z_]*(,[a-z_]*)*$',
    description,
  });
  return [
    {
      name: ONLY_PARAM,
      in: 'query',
      description: `Send only these fields of each record, comma-separated, in their usual order; one of: ${names}. The records then carry only those (an unknown name is a 400).`,
      schema: list('Field names.'),
    },
    {
      name: EXCEPT_PARAM,
      in: 'query',
      description: `Leave these fields out of each record, comma-separated; one of: ${names}.`,
      schema: list('Field names.'),
    },
    {
      name: FIELDS_PARAM,
      in: 'query',
      description: `Another name for \`${ONLY_PARAM}\`.`,
      schema: list('Field names.'),
    },
  ];
}

const FILTER_TYPES: Record<ScalarType, Schema> = {
  integer: { type: 'integer' },
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  decimal: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' },
  timestamp: { type: 'string', format: 'date-time' },
};

const RANGE: ScalarType[] = ['integer', 'decimal', 'timestamp'];

/** The filters of an index: `name`, `name__in`, `price__lt` … over every filterable path. */
export function filterParameters(paths: ReadonlyMap<string, ScalarType>): ParameterSpec[] {
  const out: ParameterSpec[] = [];
  for (const [path, type] of paths) {
    const schema = FILTER_TYPES[type];
    out.push({
      name: path,
      in: 'query',
      description: `Equal to (\`null\` matches a missing value).`,
      schema: { ...schema, ...(type === 'boolean' ? {} : {}) },
    });
    out.push({
      name: `${path}__in`,
      in: 'query',
      description: 'One of these, comma-separated.',
      schema: { type: 'string' },
    });
    if (RANGE.includes(type)) {
      for (const [op, word] of [
        ['lt', 'Less than'],
        ['lte', 'At most'],
        ['gt', 'Greater than'],
        ['gte', 'At least'],
      ]) {
        out.push({ name: `${path}__${op}`, in: 'query', description: `${word}.`, schema });
      }
    }
    if (type === 'string') {
      out.push({
        name: `${path}__contains`,
        in: 'query',
        description: 'Contains this text, ignoring case.',
        schema: { type: 'string' },
      });
    }
  }
  return out;
}

export function pageParameters(paginator: PaginatorOptions | null): ParameterSpec[] {
  if (!paginator) return [];
  const out: ParameterSpec[] = [
    {
      name: paginator.pageQueryParam,
      in: 'query',
      description: 'Page number, from 1; past the last page the results are empty.',
      schema: { type: 'integer', minimum: 1, default: 1 },
    },
  ];
  if (paginator.pageSizeQueryParam !== null) {
    out.push({
      name: paginator.pageSizeQueryParam,
      in: 'query',
      description:
        `Records per page (default ${paginator.pageSize}` +
        `${paginator.maxPageSize !== null ? `, at most ${paginator.maxPageSize}` : ''}).`,
      schema: {
        type: 'integer',
        minimum: 1,
        ...(paginator.maxPageSize !== null ? { maximum: paginator.maxPageSize } : {}),
        default: paginator.pageSize,
      },
    });
  }
  return out;
}
