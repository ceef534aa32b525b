/**
 * The webhooks in the OpenAPI document: the schemas and examples of the /api/webhooks routes,
 * and the delivery itself. The document is OpenAPI 3.0.3, which has no `webhooks` member (3.1
 * has): the delivery is described under `x-webhooks`, in the shape 3.1 gives it (a Path Item
 * whose `post` is what the service sends), with the event's schema in `components`.
 */
import type { OpenAPIObject } from '@nestjs/swagger';
import { Schema } from '../rest/http/openapi/openapi-schemas';
import { ACTIONS } from './webhook-input';

export const TAG = {
  name: 'webhooks',
  description:
    'Subscriptions to the change feed, delivered as Standard Webhooks: signed, in feed order, ' +
    'retried, from any instance (docs/webhooks.md). They need the `webhooks:admin` scope or ' +
    'the API token, reads included: secrets are in them.',
};

const NAMES = (what: string, values?: string[]): Schema => ({
  type: 'array',
  nullable: true,
  items: { type: 'string', ...(values ? { enum: values } : {}) },
  minItems: 1,
  description: `The ${what} delivered; null (or left out at creation) for all.`,
});

export const SUBSCRIPTION_SCHEMA: Schema = {
  type: 'object',
  required: [
    'id',
    'url',
    'description',
    'collections',
    'actions',
    'status',
    'disabled_reason',
    'secret',
    'last_event_id',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'integer' },
    url: { type: 'string', format: 'uri' },
    description: { type: 'string' },
    collections: NAMES('collections (plural names)'),
    actions: NAMES('actions', ACTIONS),
    status: { type: 'string', enum: ['active', 'disabled'] },
    disabled_reason: {
      type: 'string',
      nullable: true,
      description: 'Why it is disabled (a 410 from the endpoint, or through the API).',
    },
    secret: {
      type: 'string',
      description: '`whsec_` and the base64 of 32 random bytes: the key of the signatures.',
    },
    last_event_id: {
      type: 'string',
      description: 'The last event delivered or given up (a cursor of the change feed).',
    },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
  xml: { name: 'hash' },
};

export const BODY_SCHEMA: Schema = {
  type: 'object',
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      description:
        'Where to `POST` the events: `https` to a public address (WEBHOOK_ALLOW_PRIVATE=true ' +
        'also allows `http` and private addresses).',
    },
    collections: NAMES('collections (plural names)'),
    actions: NAMES('actions', ACTIONS),
    description: { type: 'string', maxLength: 255 },
    status: { type: 'string', enum: ['active', 'disabled'] },
  },
};

/**
 * A public address, not a name: the document's examples are sent as they are by the tests, where
 * no name resolves. Created disabled, so that nothing is ever sent there.
 */
export const CREATE_EXAMPLE = {
  url: 'https://93.184.215.14/hooks/records',
  collections: ['marbles'],
  actions: ['created', 'updated'],
  description: 'Billing: new and changed marbles',
  status: 'disabled',
};

export const SUBSCRIPTION_EXAMPLE = {
  id: 1,
  url: CREATE_EXAMPLE.url,
  description: CREATE_EXAMPLE.description,
  collections: CREATE_EXAMPLE.collections,
  actions: CREATE_EXAMPLE.actions,
  status: 'active',
  disabled_reason: null,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0ZTQo9MGDyA=',
  last_event_id: '41',
  created_at: '2025-01-01T12:00:00.000Z',
  updated_at: '2025-01-01T12:00:00.000Z',
};

const ATTEMPT_SCHEMA: Schema = {
  type: 'object',
  required: [
    'event_id',
    'attempt',
    'at',
    'outcome',
    'status_code',
    'error',
    'next_attempt_at',
    'duration_ms',
  ],
  properties: {
    event_id: { type: 'string', description: "The event's id (the `webhook-id`)." },
    attempt: { type: 'integer', description: 'Counted from 1 for each event (0: skipped).' },
    at: { type: 'string', format: 'date-time' },
    outcome: {
      type: 'string',
      enum: ['delivered', 'failed', 'given_up', 'disabled', 'skipped'],
      description:
        '`failed`: tried again at `next_attempt_at`; `given_up`: the last attempt failed, the ' +
        'next event goes; `disabled`: the endpoint answered 410; `skipped`: events no longer kept.',
    },
    status_code: { type: 'integer', nullable: true, description: "The endpoint's answer." },
    error: { type: 'string', nullable: true, description: 'Why there was no answer.' },
    next_attempt_at: { type: 'string', format: 'date-time', nullable: true },
    duration_ms: { type: 'integer' },
  },
};

export const ATTEMPTS_SCHEMA: Schema = {
  type: 'object',
  required: ['results'],
  properties: { results: { type: 'array', items: ATTEMPT_SCHEMA } },
  xml: { name: 'hash' },
};

export const ATTEMPTS_EXAMPLE = {
  results: [
    {
      event_id: '42',
      attempt: 2,
      at: '2025-01-01T12:00:05.120Z',
      outcome: 'delivered',
      status_code: 204,
      error: null,
      next_attempt_at: null,
      duration_ms: 12,
    },
    {
      event_id: '42',
      attempt: 1,
      at: '2025-01-01T12:00:00.100Z',
      outcome: 'failed',
      status_code: 503,
      error: null,
      next_attempt_at: '2025-01-01T12:00:05.100Z',
      duration_ms: 8,
    },
  ],
};

/** What an endpoint receives: the event as the change feed renders it. */
const EVENT: Schema = {
  type: 'object',
  required: ['id', 'collection', 'action', 'record_id', 'at', 'request_id', 'actor'],
  properties: {
    id: { type: 'string', description: 'The cursor of the change feed; also `webhook-id`.' },
    collection: { type: 'string' },
    action: { type: 'string', enum: ACTIONS },
    record_id: { type: 'integer' },
    record: { type: 'object', description: 'As `show` answers after the change; not for deleted.' },
    etag: { type: 'string', description: "The record's ETag after the change; not for deleted." },
    at: { type: 'string', format: 'date-time' },
    request_id: { type: 'string', nullable: true },
    actor: { type: 'string', nullable: true },
  },
};

const header = (name: string, description: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

/** Adds the delivery (`x-webhooks.recordChanged`) and the event's schema to `document`. */
export function describeWebhooks(document: OpenAPIObject): void {
  const schemas = (document.components ??= {}).schemas ?? (document.components.schemas = {});
  schemas.WebhookEvent = EVENT as never;
  (document as unknown as Record<string, unknown>)['x-webhooks'] = {
    recordChanged: {
      post: {
        summary: 'A record changed (what each subscription receives)',
        description:
          'Standard Webhooks: one `POST` per event, in feed order, one at a time per subscription. ' +
          '`webhook-signature` is `v1,` and the base64 of HMAC-SHA256, keyed with the base64-decoded ' +
          'part of the secret after `whsec_`, over `<webhook-id>.<webhook-timestamp>.<body>`; while a ' +
          'rotated secret is still valid, two signatures, space-separated. Any 2xx within ' +
          'WEBHOOK_TIMEOUT (15 s) counts as delivered; anything else is tried again after the delays ' +
          'of WEBHOOK_RETRY_SCHEDULE; 410 disables the subscription; redirects are not followed.',
        operationId: 'recordChanged',
        tags: [TAG.name],
        parameters: [
          header('webhook-id', "The event's id (the feed's cursor): the same on every attempt."),
          header('webhook-timestamp', 'When this attempt was sent, in Unix seconds.'),
          header('webhook-signature', '`v1,<base64>`, one or two, space-separated.'),
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } },
          },
        },
        responses: {
          '2XX': { description: 'Delivered.' },
          '410': { description: 'Gone: the subscription is disabled.' },
          default: { description: 'Tried again later, as WEBHOOK_RETRY_SCHEDULE says.' },
        },
      },
    },
  };
}
