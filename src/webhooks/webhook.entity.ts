import { dialectEntity } from '../rest/sql/tables';

/**
 * A webhook subscription (docs/webhooks.md): where to deliver (`url`), what (`collections` and
 * `actions`, comma-separated names, NULL for all), its `status` (`active`, `disabled`) and why
 * (`disabled_reason`), its `secret` and the one it replaced while that still signs
 * (`previous_secret` until `previous_secret_until`), and its delivery state: `last_event`, the
 * position of the last event delivered or given up (the feed's cursor); `attempt`, the attempts
 * made on the next event, `next_attempt_at` when the next may run; `epoch`, moved by a replay
 * (the holder's saves are conditional on it); `holder` delivers it until `lease_until`. Times are
 * milliseconds since the epoch. Read and written as plain SQL (webhook-store.ts); the entities
 * describe the tables for the schema check (migration 1764450000000-webhooks.ts).
 */
export const WebhookSubscriptionRow = dialectEntity('webhook_subscriptions', () => ({
  name: 'webhook_subscriptions',
  tableName: 'webhook_subscriptions',
  columns: {
    id: { type: 'int', primary: true, generated: 'increment' },
    url: { type: 'varchar', length: 2048 },
    description: { type: 'varchar', length: 255 },
    collections: { type: 'varchar', length: 1024, nullable: true },
    actions: { type: 'varchar', length: 64, nullable: true },
    status: { type: 'varchar', length: 16 },
    disabled_reason: { type: 'varchar', length: 255, nullable: true },
    secret: { type: 'varchar', length: 128 },
    previous_secret: { type: 'varchar', length: 128, nullable: true },
    previous_secret_until: { type: 'bigint', nullable: true },
    created_at: { type: 'bigint' },
    updated_at: { type: 'bigint' },
    last_event: { type: 'bigint' },
    attempt: { type: 'int' },
    next_attempt_at: { type: 'bigint' },
    epoch: { type: 'int' },
    holder: { type: 'varchar', length: 64 },
    lease_until: { type: 'bigint' },
  },
}));

/**
 * The latest delivery attempts of each subscription (the newest WEBHOOK_KEPT_ATTEMPTS): the
 * event's position (`event_id`), the attempt's number, when it was made, the answer's status or
 * the error, what came of it (`outcome`: delivered, failed, given_up, disabled, skipped), when
 * the next attempt runs, and how long it took.
 */
export const WebhookDeliveryRow = dialectEntity('webhook_deliveries', () => ({
  name: 'webhook_deliveries',
  tableName: 'webhook_deliveries',
  columns: {
    id: { type: 'int', primary: true, generated: 'increment' },
    subscription_id: { type: 'int' },
    event_id: { type: 'bigint' },
    attempt: { type: 'int' },
    at: { type: 'bigint' },
    status_code: { type: 'int', nullable: true },
    error: { type: 'varchar', length: 255, nullable: true },
    outcome: { type: 'varchar', length: 16 },
    next_attempt_at: { type: 'bigint', nullable: true },
    duration_ms: { type: 'int' },
  },
  indices: [{ name: 'idx_webhook_deliveries_subscription_id', columns: ['subscription_id'] }],
}));
