import { Field, ScalarField, foreignKey, integer, reference, string } from '../rest/core/fields';
import { defineTable } from '../rest/sql/tables';

/**
 * Internal table (seeded, no routes): the owners of records. `email_id` is the user's billing
 * address, which its e-mail record shows as `billing_user`: one to one in effect (unique).
 */
export const USERS = defineTable('users', [
  integer('id'),
  string('login', { unique: true }),
  foreignKey('email_id', 'emails', undefined, { nullable: true, unique: true }),
]);

/** `{id, login}` of a user, the shape every user reference has. */
export const userSummary = (): ScalarField[] => [integer('id'), string('login', { key: true })];

/**
 * A record's owner: `user_id` (written, filtered, never rendered) and `user: {id, login}`. A
 * required owner takes its records with it when it goes (`ON DELETE CASCADE`); an optional one
 * (`{ optional: true }`: `user_id` may be null, and is by default) leaves them, ownerless
 * (`SET NULL`).
 */
export function owner({ optional = false } = {}): Field[] {
  return [
    foreignKey(
      'user_id',
      'users',
      optional ? { nullable: true, default: null } : { required: true },
    ),
    reference('user', {
      table: 'users',
      targetColumn: 'id',
      rootColumn: 'user_id',
      fields: userSummary(),
    }),
  ];
}
