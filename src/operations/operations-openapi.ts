/**
 * `POST /api/operations` in the OpenAPI document: its body, its answer, and an example that
 * succeeds on the demo data (a marble created and named by `ref`, its price set through that ref,
 * a phone number moved to its owner), which Swagger UI's "Try it out" sends as it is.
 */
import { PlainSpec } from '../rest/http/openapi/openapi';
import { Schema } from '../rest/http/openapi/openapi-schemas';

export const TAG = {
  name: 'operations',
  description:
    'Several writes over several collections in one request and one transaction: all commit, ' +
    'or nothing does (docs/operations-api.md).',
};

const ID: Schema = {
  oneOf: [
    { type: 'integer', minimum: 1 },
    {
      type: 'object',
      required: ['ref'],
      properties: { ref: { type: 'string' } },
      description: 'The record an earlier create of the request named with `ref`.',
    },
  ],
};

const OPERATION: Schema = {
  type: 'object',
  required: ['op', 'collection'],
  properties: {
    op: {
      type: 'string',
      description:
        '`create`, `update`, `destroy`, or a member action of the collection (`adjust_price`, `toggle_is_discounted`).',
    },
    collection: { type: 'string', description: 'The plural name of a collection (`marbles`).' },
    id: { ...ID, description: 'The record (every op but create): an id, or `{"ref": "<name>"}`.' },
    record: {
      type: 'object',
      additionalProperties: true,
      description:
        'What the collection\'s own route takes (create, update, an action\'s body). A foreign key may be `{"ref": "<name>"}`.',
    },
    ref: { type: 'string', description: 'A create only: a name, unique in the request.' },
    if_match: {
      type: 'string',
      description: "An ETag: the operation runs only if it is the record's.",
    },
  },
  xml: { name: 'operation' },
};

export const OPERATIONS_EXAMPLE = {
  operations: [
    {
      op: 'create',
      collection: 'marbles',
      ref: 'new_marble',
      record: { name: 'Atomic marble', radius_mm: 12, user_id: 1 },
    },
    {
      op: 'adjust_price',
      collection: 'marbles',
      id: { ref: 'new_marble' },
      record: { price: '12.5' },
    },
    { op: 'update', collection: 'phone_numbers', id: 1, record: { user_id: 1 } },
  ],
};

const RESULT: Schema = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { type: 'integer', description: 'What its own route would answer: 201, 200 or 204.' },
    record: {
      type: 'object',
      additionalProperties: true,
      description: 'Create and update: the record.',
    },
    etag: { type: 'string', description: "Create and update: the record's new ETag." },
    message: { type: 'string', description: 'An action: what changed, in words.' },
  },
  xml: { name: 'result' },
};

export const OPERATIONS_SPEC: PlainSpec = {
  tag: TAG,
  operationId: 'runOperations',
  summary: 'Run several writes in one transaction',
  description:
    'The operations run in order, each validated and applied as its own route does it, in one ' +
    'transaction: all commit, or none does. A failing operation answers its own status with ' +
    '`operation` (its place, counted from 1) and a message naming it. At most `OPERATIONS_MAX` ' +
    '(100) operations. XML: root `<operations type="array">`, each item an `<operation>`.',
  write: true,
  body: {
    schema: {
      type: 'object',
      required: ['operations'],
      properties: { operations: { type: 'array', items: OPERATION, minItems: 1 } },
      xml: { name: 'hash' },
    },
    example: OPERATIONS_EXAMPLE,
    xmlRoot: 'hash',
    required: true,
  },
  success: [
    200,
    {
      description: 'Every operation committed: one result per operation, in order.',
      schema: {
        type: 'object',
        required: ['results'],
        properties: { results: { type: 'array', items: RESULT } },
        xml: { name: 'hash' },
      },
      example: {
        results: [
          { status: 201, record: { id: 101, name: 'Atomic marble' }, etag: '"101.0"' },
          { status: 200, message: 'Price updated to 12.5.' },
          {
            status: 200,
            record: { id: 1, number: '+1 555 0100', user: { id: 1, login: 'ann' } },
            etag: '"1.1"',
          },
        ],
      },
    },
  ],
  errors: [400, 403, 404, 412, 422],
};

/** `GET /api/operations`: what the route takes, with the example (the browsable page's form). */
export const DESCRIBE_SPEC: PlainSpec = {
  tag: TAG,
  operationId: 'describeOperations',
  summary: 'What atomic operations take',
  description:
    'How to send them, the most operations one request may hold (`OPERATIONS_MAX`), and an ' +
    'example body. In a browser, the page has a form that sends a body and shows the results.',
  write: false,
  success: [
    200,
    {
      description: 'The route in words, its limit and an example.',
      schema: {
        type: 'object',
        required: ['message', 'max_operations', 'example'],
        properties: {
          message: { type: 'string' },
          max_operations: { type: 'integer' },
          example: { type: 'object', additionalProperties: true },
        },
        xml: { name: 'hash' },
      },
      example: {
        message:
          'POST {"operations": [...]} here: several writes over several collections, in order, in one transaction (docs/operations-api.md).',
        max_operations: 100,
        example: OPERATIONS_EXAMPLE,
      },
    },
  ],
};
