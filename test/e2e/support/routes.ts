/**
 * What the OpenAPI document lists for a collection, from its declaration: the standard routes,
 * in the order the document gives them, with their operationIds.
 */
import type { Collection } from '../../sources';

/** `phone_numbers` → `PhoneNumbers`. */
function pascal(name: string): string {
  return name.replace(/(^|_)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
}

/** `METHOD path operationId` of each standard route of a collection, in the document's order. */
export function standardRoutes({ declaration }: Collection): string[] {
  const { path, bulk, probes } = declaration;
  const one = pascal(declaration.singular);
  const all = pascal(declaration.plural);
  return [
    `GET ${path} list${all}`,
    `POST ${path} create${one}`,
    ...(bulk
      ? [
          `PUT ${path} bulkReplace${all}`,
          `PATCH ${path} bulkUpdate${all}`,
          `DELETE ${path} bulkDestroy${all}`,
        ]
      : []),
    `OPTIONS ${path} describe${all}`,
    `GET ${path}.csv list${all}Csv`,
    ...(probes ? [`GET ${path}/child_ping childPing${all}`, `GET ${path}/ping ping${all}`] : []),
    `GET ${path}/{id} show${one}`,
    `PUT ${path}/{id} replace${one}`,
    `PATCH ${path}/{id} update${one}`,
    `DELETE ${path}/{id} destroy${one}`,
    `GET ${path}/{id}.csv show${one}Csv`,
  ];
}

/** `METHOD path operationId` of every operation of an OpenAPI document, in its order. */
export function documentRoutes(doc: {
  paths: Record<string, Record<string, { operationId: string }>>;
}): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
  );
}

/**
 * The change feed's routes (docs/events.md), `/api/events` and each collection's `…/events`:
 * plain routes, which the document lists by path after the front door's.
 */
export function eventRoutes(collections: readonly Collection[]): string[] {
  return [
    ['/api/events', 'listEvents'],
    ...collections.map(({ declaration: { path, plural } }) => [
      `${path}/events`,
      `list${pascal(plural)}Events`,
    ]),
  ]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([path, id]) => `GET ${path} ${id}`);
}

/** The query parameters of a paginated index, in the order the document lists them first. */
export const INDEX_PARAMETERS = ['page', 'page_size', 'ordering', 'search', 'only', 'except'];

/** The webhook subscriptions' routes (docs/webhooks.md), as the document lists them. */
export const WEBHOOK_ROUTES = [
  'GET /api/webhooks listWebhooks',
  'POST /api/webhooks createWebhook',
  'GET /api/webhooks/{id} showWebhook',
  'PATCH /api/webhooks/{id} updateWebhook',
  'DELETE /api/webhooks/{id} deleteWebhook',
  'GET /api/webhooks/{id}/deliveries listWebhookDeliveries',
  'POST /api/webhooks/{id}/replay replayWebhook',
  'POST /api/webhooks/{id}/rotate_secret rotateWebhookSecret',
];
