import { boolean, integer, reference, string } from '../rest/core/fields';
import { defineResource } from '../rest/core/resource';
import { owner, userSummary } from '../users/users.table';

export const EMAILS = defineResource({
  path: '/api/demo/emails',
  singular: 'email',
  plural: 'emails',
  label: 'Email',
  table: 'emails',
  fields: [
    integer('id'),
    string('email', {
      searchable: true,
      unique: true,
      write: { required: true, email: true, maxLength: 255 },
    }),
    // At most one primary address per user; making one primary unflags the user's old one.
    // The unique index uq_emails_primary_user_id enforces it in the database.
    boolean('is_primary', {
      write: {
        default: false,
        exclusiveWithin: { field: 'user_id', uniqueKey: 'primary_user_id' },
      },
    }),
    ...owner(),
    // The user whose billing address this is: users.email_id points here.
    reference('billing_user', {
      table: 'users',
      targetColumn: 'email_id',
      rootColumn: 'id',
      fields: userSummary(),
    }),
  ],
  probes: true,
  examples: {
    id: 1,
    deletable: [10, 11, 12],
    create: { email: 'new.address@example.com', is_primary: false, user_id: 3 },
    update: { is_primary: true },
    updateAll: [
      { id: 5, is_primary: false },
      { id: 6, user_id: 4 },
    ],
  },
  pagination: { pageSize: 30 },
});
