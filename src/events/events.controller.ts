import { Controller, Get, Req, Res, Type } from '@nestjs/common';
import type { Request, Response } from 'express';
import { pascal } from '../rest/core/names';
import { ResourceDefinition } from '../rest/core/resource';
import { PlainOperation, PlainSpec } from '../rest/http/openapi/openapi';
import { HEARTBEAT_MS } from '../config/configuration';
import { EventFeed, PAGE_LIMIT } from './event-feed';

const TAG = {
  name: 'events',
  description:
    'The change feed: an event per changed record, in the order to apply them, resumable from ' +
    'any event id on any instance (docs/events.md). `Accept: text/event-stream` streams it; ' +
    'otherwise a page in JSON, XML or HTML.',
};

const EVENT = {
  type: 'object',
  required: ['id', 'collection', 'action', 'record_id', 'at', 'request_id', 'actor'],
  properties: {
    id: { type: 'string', description: 'The cursor: resume after it.' },
    collection: { type: 'string' },
    action: { type: 'string', enum: ['created', 'updated', 'deleted'] },
    record_id: { type: 'integer' },
    record: {
      type: 'object',
      description: 'As `show` answers after the change; not for `deleted`.',
    },
    etag: { type: 'string', description: "The record's ETag after the change; not for `deleted`." },
    at: { type: 'string', format: 'date-time' },
    request_id: { type: 'string', nullable: true, description: "The write's X-Request-Id." },
    actor: {
      type: 'string',
      nullable: true,
      description: 'Who wrote: a token `sub`, or api-token.',
    },
  },
};

const PAGE = {
  type: 'object',
  required: ['results', 'next'],
  properties: {
    results: { type: 'array', items: EVENT, xml: { wrapped: true } },
    next: { type: 'string', description: 'The URL of the page after this one (always there).' },
  },
};

const EXAMPLE = {
  results: [
    {
      id: '42',
      collection: 'marbles',
      action: 'updated',
      record_id: 7,
      record: { id: 7, name: 'Opal', price: '12.50' },
      etag: '"7.3"',
      at: '2025-01-01T12:00:00.000Z',
      request_id: '6f1c2d9e-0b7a-4a43-9a51-3f1f6c1f0e11',
      actor: 'api-token',
    },
  ],
  next: 'http://localhost:3000/api/events?after=42',
};

/** The stream: one `id`/`event`/`data` block per event, and comment lines. */
const STREAM = {
  schema: {
    type: 'string',
    description:
      'Server-Sent Events: `id` the cursor, `event` the action, `data` the event as JSON (as in ' +
      'a page); comment lines (`: heartbeat`) keep the connection open.',
  },
  example:
    ': events\n\n' +
    `id: 42\nevent: updated\ndata: ${JSON.stringify(EXAMPLE.results[0])}\n\n` +
    ': heartbeat\n\n',
};

function spec(operationId: string, summary: string, all: boolean): PlainSpec {
  return {
    tag: TAG,
    operationId,
    summary,
    description:
      'With `Accept: text/event-stream`: Server-Sent Events (`id`, `event` the action, `data` the ' +
      'event as JSON), from the present, or after `Last-Event-ID` / `after`, with a comment line ' +
      `(\`: heartbeat\`) every ${HEARTBEAT_MS / 1000} s. Otherwise a page of the events after \`after\`.`,
    write: false,
    parameters: [
      {
        name: 'after',
        in: 'query',
        description: 'A cursor (an event id): the events after it. `0`: from the oldest kept.',
        schema: { type: 'string', pattern: '^(0|[1-9][0-9]*)$' },
      },
      {
        name: 'limit',
        in: 'query',
        description: `Events per page, 1-${PAGE_LIMIT.max} (default ${PAGE_LIMIT.default}).`,
        schema: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT.max },
      },
      ...(all
        ? [
            {
              name: 'collections',
              in: 'query' as const,
              description: 'Only these collections, comma-separated: `marbles,emails`.',
              schema: { type: 'string' },
            },
          ]
        : []),
      {
        name: 'Last-Event-ID',
        in: 'header',
        description: 'The id of the last event received: the stream resumes after it.',
        schema: { type: 'string' },
      },
    ],
    success: [
      200,
      {
        description: 'A page of events, or with `Accept: text/event-stream` the stream.',
        schema: PAGE,
        example: EXAMPLE,
        otherMedia: { 'text/event-stream': STREAM },
      },
    ],
    errors: [400, 409, 410],
  };
}

/** `GET /api/events`: every collection's events, `?collections=` narrowing them. */
@Controller('api')
export class EventsController {
  constructor(private readonly feed: EventFeed) {}

  @Get('events')
  @PlainOperation(spec('listEvents', 'The change feed of every collection', true))
  events(@Req() req: Request, @Res() res: Response) {
    return this.feed.serve(req, res);
  }
}

/** `GET {collection}/events`: the events of one collection. */
export function collectionEventsController(resource: ResourceDefinition): Type<unknown> {
  @Controller(resource.path)
  class CollectionEventsController {
    constructor(readonly feed: EventFeed) {}

    @Get('events')
    @PlainOperation(
      spec(
        `list${pascal(resource.plural)}Events`,
        `The change feed of ${resource.plural.replace(/_/g, ' ')}`,
        false,
      ),
    )
    events(@Req() req: Request, @Res() res: Response) {
      return this.feed.serve(req, res, resource.plural);
    }
  }
  Object.defineProperty(CollectionEventsController, 'name', {
    value: `${pascal(resource.plural)}EventsController`,
  });
  return CollectionEventsController;
}
