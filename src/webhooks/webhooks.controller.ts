import {
  Body,
  CanActivate,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Injectable,
  Optional,
  Param,
  Patch,
  Post,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import { Message } from '../rest/core/output/render';
import { AccessControl } from '../rest/http/auth/access-control';
import { PlainOperation, PlainSpec } from '../rest/http/openapi/openapi';
import { ApiError } from '../rest/http/response/api-error';
import {
  ATTEMPTS_SCHEMA,
  BODY_SCHEMA,
  CREATE_EXAMPLE,
  SUBSCRIPTION_EXAMPLE,
  SUBSCRIPTION_SCHEMA,
  TAG,
  ATTEMPTS_EXAMPLE,
} from './webhook-openapi';
import { notFound, WebhooksService } from './webhooks.service';

export const WEBHOOK_GATE = Symbol('WEBHOOK_GATE');

/**
 * Without any access control (no API_TOKEN, no issuer), a webhook registry open to anyone would
 * let anyone read the secrets and send the feed anywhere: the routes then answer 403, unless
 * WEBHOOK_ALLOW_PRIVATE=true (development and tests). With access control, the access middleware
 * has already required the `webhooks:admin` scope (auth/access-rules.ts).
 */
@Injectable()
export class WebhookGate implements CanActivate {
  constructor(
    @Inject(WEBHOOK_GATE) private readonly allowOpen: boolean,
    @Optional() @Inject(AccessControl) private readonly access: AccessControl | null,
  ) {}

  canActivate(): boolean {
    if (this.access || this.allowOpen) return true;
    throw new ApiError(
      403,
      'Webhook subscriptions need access control: set API_TOKEN (or AUTH_ISSUER / AUTH_JWKS_URL, ' +
        'with the webhooks:admin scope); WEBHOOK_ALLOW_PRIVATE=true opens them without it, for development.',
    );
  }
}

/** A subscription's id as the path writes it; anything else is no subscription (404). */
function idOf(raw: string): number {
  const id = /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(id <= 2 ** 31 - 1)) throw notFound(raw);
  return id;
}

const ID = {
  name: 'id',
  in: 'path' as const,
  required: true,
  description: "The subscription's id.",
  schema: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
  example: 1,
};

function spec(
  operationId: string,
  summary: string,
  description: string,
  rest: Partial<PlainSpec> & Pick<PlainSpec, 'success'>,
): PlainSpec {
  return { tag: TAG, operationId, summary, description, write: false, ...rest };
}

const ONE = (description: string) => ({
  description,
  schema: SUBSCRIPTION_SCHEMA,
  example: SUBSCRIPTION_EXAMPLE,
});

/** `/api/webhooks`: subscriptions to the change feed, delivered as Standard Webhooks. */
@Controller('api/webhooks')
@UseGuards(WebhookGate)
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @PlainOperation(
    spec('listWebhooks', 'The webhook subscriptions', 'Every subscription, secrets included.', {
      success: [
        200,
        {
          description: 'The subscriptions, oldest first.',
          schema: {
            type: 'object',
            required: ['results'],
            properties: { results: { type: 'array', items: SUBSCRIPTION_SCHEMA } },
            xml: { name: 'hash' },
          },
          example: { results: [SUBSCRIPTION_EXAMPLE] },
        },
      ],
      errors: [403],
    }),
  )
  list() {
    return this.webhooks.list();
  }

  @Post()
  @HttpCode(201)
  @PlainOperation(
    spec(
      'createWebhook',
      'Subscribe a URL to the change feed',
      'It receives each matching event written from now on as a `POST` of the event (as the ' +
        'change feed renders it) with the Standard Webhooks headers, signed with `secret` (see ' +
        '`x-webhooks` of this document and docs/webhooks.md). The URL must be `https` to a public ' +
        'address unless WEBHOOK_ALLOW_PRIVATE=true.',
      {
        body: {
          schema: BODY_SCHEMA,
          example: CREATE_EXAMPLE,
          xmlRoot: 'webhook',
          description:
            'The example is created `disabled` (paused: nothing is sent until `PATCH {"status": "active"}`); leave `status` out to start at once.',
        },
        success: [
          201,
          {
            ...ONE('The subscription, with its secret; `Location` is its URL.'),
            headers: {
              Location: { description: "The subscription's URL.", schema: { type: 'string' } },
            },
          },
        ],
        errors: [400, 403, 413, 415],
      },
    ),
  )
  create(@Body() body: unknown) {
    return this.webhooks.create(body);
  }

  @Get(':id')
  @PlainOperation(
    spec('showWebhook', 'A webhook subscription', 'The subscription, its secret included.', {
      parameters: [ID],
      success: [200, ONE('The subscription.')],
      errors: [403, 404],
    }),
  )
  show(@Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    res.setHeader(
      'Link',
      `</api/webhooks/${idOf(id)}/deliveries>; rel="related"; title="Its latest delivery attempts"`,
    );
    return this.webhooks.show(idOf(id));
  }

  @Patch(':id')
  @PlainOperation(
    spec(
      'updateWebhook',
      'Change a webhook subscription',
      'Any of `url`, `collections`, `actions`, `description`; `status`: `active` enables a ' +
        'disabled subscription again (it goes on from where it stopped), `disabled` stops it.',
      {
        parameters: [ID],
        body: {
          schema: { ...BODY_SCHEMA, required: undefined },
          example: { description: 'Billing: every change of a marble', actions: null },
          xmlRoot: 'webhook',
        },
        success: [200, ONE('The subscription as changed.')],
        errors: [400, 403, 404, 413, 415],
      },
    ),
  )
  update(@Param('id') id: string, @Body() body: unknown) {
    return this.webhooks.update(idOf(id), body);
  }

  @Delete(':id')
  @HttpCode(204)
  @PlainOperation(
    spec('deleteWebhook', 'Delete a webhook subscription', 'Nothing more is delivered to it.', {
      parameters: [ID],
      success: [204, { description: 'Deleted; no body.' }],
      errors: [403, 404, 413, 415],
    }),
  )
  async remove(@Param('id') id: string): Promise<void> {
    await this.webhooks.remove(idOf(id));
  }

  @Get(':id/deliveries')
  @PlainOperation(
    spec(
      'listWebhookDeliveries',
      'The latest delivery attempts of a subscription',
      'Newest first, the latest 50: the event, the attempt, its answer or error, and when the ' +
        'next attempt runs. Kept at most a second after the attempt.',
      {
        parameters: [ID],
        success: [
          200,
          { description: 'The attempts.', schema: ATTEMPTS_SCHEMA, example: ATTEMPTS_EXAMPLE },
        ],
        errors: [403, 404],
      },
    ),
  )
  deliveries(@Param('id') id: string) {
    return this.webhooks.deliveries(idOf(id));
  }

  @Post(':id/replay')
  @HttpCode(200)
  @PlainOperation(
    spec(
      'replayWebhook',
      'Send the events after a cursor again',
      'Delivery goes on after `after` (an event id of the change feed; `0`: from the oldest ' +
        'event kept): the matching events after it are sent again, in order, with their own ' +
        '`webhook-id`s.',
      {
        parameters: [ID],
        body: {
          schema: {
            type: 'object',
            required: ['after'],
            properties: { after: { type: 'string', pattern: '^(0|[1-9][0-9]*)$' } },
            additionalProperties: false,
          },
          example: { after: '0' },
        },
        success: [
          200,
          {
            description: 'What will be sent.',
            schema: { $ref: '#/components/schemas/Message' },
            example: new Message(
              'The events kept that this subscription takes will be sent again, in order.',
            ),
          },
        ],
        errors: [400, 403, 404, 409, 410, 413, 415],
      },
    ),
  )
  async replay(@Param('id') id: string, @Body() body: unknown) {
    return new Message((await this.webhooks.replay(idOf(id), body)).message);
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @PlainOperation(
    spec(
      'rotateWebhookSecret',
      "Replace a subscription's secret",
      'A new secret signs every delivery from now on; the one it replaces signs them too for ' +
        'WEBHOOK_SECRET_GRACE (24 h): `webhook-signature` then carries both.',
      {
        parameters: [ID],
        success: [200, ONE('The subscription, with its new secret.')],
        errors: [403, 404, 413, 415],
      },
    ),
  )
  rotate(@Param('id') id: string) {
    return this.webhooks.rotate(idOf(id));
  }
}
