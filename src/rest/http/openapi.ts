/**
 * OpenAPI metadata for collection routes, composed from the classes built out of the
 * declarations (dto.ts), so the document describes exactly what the validators and serializers do.
 */
import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiQuery,
  ApiTags,
  ApiUnprocessableEntityResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { inputSchema, recordSchema } from './openapi-schemas';
import { ResourceDefinition } from '../core/resource';

const ERROR = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
  },
  required: ['message'],
};

const records = (resource: ResourceDefinition) => ({
  type: 'array',
  items: { $ref: getSchemaPath(recordSchema(resource)) },
});

const message = (resource: ResourceDefinition) => ({
  type: 'object',
  properties: { message: { type: 'string' }, records: records(resource) },
});

/** Tags the controller and registers its schemas. */
export const CollectionDoc = (resource: ResourceDefinition) =>
  applyDecorators(
    ApiTags(resource.plural),
    ApiExtraModels(recordSchema(resource), inputSchema(resource)),
  );

export const IndexDoc = (resource: ResourceDefinition, paginated: boolean) =>
  applyDecorators(
    ApiQuery({ name: 'page', required: false, type: 'integer' }),
    ApiQuery({ name: 'page_size', required: false, type: 'integer' }),
    ApiQuery({
      name: 'ordering',
      required: false,
      type: 'string',
      description: 'e.g. -price,name',
    }),
    ApiQuery({ name: 'search', required: false, type: 'string' }),
    ApiOkResponse({
      schema: paginated
        ? {
            type: 'object',
            properties: {
              count: { type: 'integer' },
              page: { type: 'integer' },
              page_size: { type: 'integer' },
              total_pages: { type: 'integer' },
              next: { type: 'string', format: 'uri' },
              previous: { type: 'string', format: 'uri' },
              results: records(resource),
            },
          }
        : records(resource),
    }),
    ApiBadRequestResponse({ description: 'A filter value of the wrong type.', schema: ERROR }),
  );

export const ShowDoc = (resource: ResourceDefinition) =>
  applyDecorators(
    ApiOkResponse({ type: recordSchema(resource) }),
    ApiNotFoundResponse({ schema: ERROR }),
  );

export const CreateDoc = (resource: ResourceDefinition, bulk: boolean) =>
  applyDecorators(
    ApiBody({
      schema: bulk
        ? {
            oneOf: [
              { $ref: getSchemaPath(inputSchema(resource)) },
              {
                type: 'array',
                items: { $ref: getSchemaPath(inputSchema(resource)) },
                maxItems: 1000,
              },
            ],
          }
        : { $ref: getSchemaPath(inputSchema(resource)) },
    }),
    ApiCreatedResponse({
      description: bulk ? 'The record, or for an array `{message, records}`.' : 'The record.',
      schema: bulk
        ? { oneOf: [{ $ref: getSchemaPath(recordSchema(resource)) }, message(resource)] }
        : { $ref: getSchemaPath(recordSchema(resource)) },
    }),
    ApiBadRequestResponse({ schema: ERROR }),
    ...(bulk
      ? [
          ApiUnprocessableEntityResponse({
            description: 'Invalid items; errors aligned with the input.',
          }),
        ]
      : []),
  );

export const UpdateDoc = (resource: ResourceDefinition) =>
  applyDecorators(
    ApiBody({ type: inputSchema(resource), description: 'Partial: only the fields sent change.' }),
    ApiOkResponse({ type: recordSchema(resource) }),
    ApiBadRequestResponse({ schema: ERROR }),
    ApiNotFoundResponse({ schema: ERROR }),
  );

export const DestroyDoc = () =>
  applyDecorators(ApiNoContentResponse(), ApiNotFoundResponse({ schema: ERROR }));

export const UpdateAllDoc = (resource: ResourceDefinition) =>
  applyDecorators(
    ApiBody({
      schema: {
        type: 'array',
        maxItems: 1000,
        items: {
          allOf: [
            { $ref: getSchemaPath(inputSchema(resource)) },
            { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
          ],
        },
      },
    }),
    ApiOkResponse({ schema: message(resource) }),
    ApiBadRequestResponse({ schema: ERROR }),
    ApiUnprocessableEntityResponse({
      description: 'Invalid items; errors aligned with the input.',
    }),
  );

export const DestroyAllDoc = (resource: ResourceDefinition) =>
  applyDecorators(
    ApiBody({ schema: { type: 'array', items: { type: 'integer' }, maxItems: 1000 } }),
    ApiOkResponse({ schema: message(resource) }),
    ApiBadRequestResponse({ schema: ERROR }),
  );

export const MessageDoc = () =>
  applyDecorators(
    ApiOkResponse({ schema: { type: 'object', properties: { message: { type: 'string' } } } }),
  );
