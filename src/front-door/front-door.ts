import { ResourceDeclaration } from '../rest/core/resource';
import { Schema } from '../rest/http/openapi/openapi-schemas';

/** The front door's answer: where everything else is. */
export interface Links {
  collections: Record<string, string>;
  /** The change feed of every collection; absent with EVENTS_ENABLED=false (no such route). */
  events?: string;
  /** The webhook subscriptions (the feed delivered); absent with EVENTS_ENABLED=false. */
  webhooks?: string;
  /** Several writes over several collections in one request (POST, docs/operations-api.md). */
  operations: string;
  docs: string;
  openapi: string;
  health: { live: string; ready: string };
}

/** The change feed of every collection (EventsModule). */
const EVENTS = '/api/events';

/** The webhook subscriptions (WebhooksModule), served with the change feed. */
const WEBHOOKS = '/api/webhooks';

/** The paths of the documentation and health routes (set up in setup.ts and HealthModule). */
const FIXED = {
  operations: '/api/operations',
  docs: '/api/docs/',
  openapi: '/api/openapi.json',
  health: { live: '/health/live', ready: '/health/ready' },
};

/**
 * The links of `GET /` and `GET /api`: the paths are put together once, from the collections
 * the application serves; a request only puts its origin (scheme and host) in front of them.
 */
export class FrontDoor {
  private readonly paths: Links;

  /** `events`: the change feed is served (EVENTS_ENABLED), so the door links it. */
  constructor(collections: readonly ResourceDeclaration[], events: boolean) {
    this.paths = {
      collections: Object.fromEntries(collections.map((c) => [c.plural, `${c.path}/`])),
      ...(events ? { events: EVENTS, webhooks: WEBHOOKS } : {}),
      ...FIXED,
    };
  }

  /** The plural names of the collections, in order. */
  get names(): string[] {
    return Object.keys(this.paths.collections);
  }

  /** The links under `origin` (`http://localhost:3000`). */
  links(origin: string): Links {
    const { collections, events, webhooks, operations, docs, openapi, health } = this.paths;
    return {
      collections: Object.fromEntries(
        Object.entries(collections).map(([name, path]) => [name, origin + path]),
      ),
      ...(events ? { events: origin + events } : {}),
      ...(webhooks ? { webhooks: origin + webhooks } : {}),
      operations: origin + operations,
      docs: origin + docs,
      openapi: origin + openapi,
      health: { live: origin + health.live, ready: origin + health.ready },
    };
  }
}

/** The OpenAPI schema of the answer, for the collections `names`. */
export function linksSchema(names: string[]): Schema {
  const url: Schema = { type: 'string', format: 'uri' };
  return {
    type: 'object',
    required: ['collections', 'operations', 'docs', 'openapi', 'health'],
    properties: {
      collections: {
        type: 'object',
        description: 'The index of each collection.',
        required: names,
        properties: Object.fromEntries(names.map((name) => [name, url])),
        additionalProperties: false,
      },
      events: {
        ...url,
        description: 'The change feed of every collection; absent when EVENTS_ENABLED=false.',
      },
      webhooks: {
        ...url,
        description:
          'The webhook subscriptions (the change feed delivered); absent when EVENTS_ENABLED=false.',
      },
      operations: {
        ...url,
        description:
          'Atomic operations: POST several writes over several collections, all or nothing.',
      },
      docs: { ...url, description: 'The API documentation (Swagger UI).' },
      openapi: { ...url, description: 'This OpenAPI document.' },
      health: {
        type: 'object',
        required: ['live', 'ready'],
        properties: { live: url, ready: url },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
    xml: { name: 'hash' },
  };
}
