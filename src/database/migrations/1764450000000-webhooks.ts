import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { columnTypes } from './table-helpers';

/**
 * Webhooks (src/webhooks, docs/webhooks.md): `webhook_subscriptions`, one row per subscription
 * with its delivery state and its lease, and `webhook_deliveries`, the latest attempts of each
 * (webhook.entity.ts says what each column holds). Each has a primary key (a Galera cluster
 * replicates no table without one); the deliveries are found by subscription through an index,
 * and deleted with it by the service (no foreign key: the delivery loop's inserts need not lock
 * the subscription's row).
 */
export class Webhooks1764450000000 implements MigrationInterface {
  name = 'Webhooks1764450000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = await columnTypes(queryRunner);
    const big = (name: string, isNullable = false) => ({ name, type: 'bigint', isNullable });
    await queryRunner.createTable(
      new Table({
        name: 'webhook_subscriptions',
        columns: [
          c.id(),
          c.text('url', { length: '2048' }),
          c.text('description'),
          c.text('collections', { length: '1024', isNullable: true }),
          c.text('actions', { length: '64', isNullable: true }),
          c.text('status', { length: '16' }),
          c.text('disabled_reason', { isNullable: true }),
          c.text('secret', { length: '128' }),
          c.text('previous_secret', { length: '128', isNullable: true }),
          big('previous_secret_until', true),
          big('created_at'),
          big('updated_at'),
          big('last_event'),
          c.int('attempt'),
          big('next_attempt_at'),
          c.int('epoch'),
          c.text('holder', { length: '64' }),
          big('lease_until'),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'webhook_deliveries',
        columns: [
          c.id(),
          c.int('subscription_id'),
          big('event_id'),
          c.int('attempt'),
          big('at'),
          c.int('status_code', { isNullable: true }),
          c.text('error', { isNullable: true }),
          c.text('outcome', { length: '16' }),
          big('next_attempt_at', true),
          c.int('duration_ms'),
        ],
        indices: [
          new TableIndex({
            name: 'idx_webhook_deliveries_subscription_id',
            columnNames: ['subscription_id'],
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_deliveries');
    await queryRunner.dropTable('webhook_subscriptions');
  }
}
