import {
  boolean,
  foreignKey,
  integer,
  reference,
  string,
  userSummary,
  owner,
} from '../rest/fields';
import { CollectionRoutes } from '../rest/collection.controller';
import { defineResource } from '../rest/resource';

export const EMAILS = defineResource({
  singular: 'email',
  plural: 'emails',
  label: 'Email',
  table: 'emails',
  fields: [
    integer('id'),
    string('email', {
      searchable: true,
      write: { required: true, email: true, maxLength: 255, unique: true },
    }),
    boolean('is_primary', { write: { default: false } }),
    foreignKey('user_id', 'users', { required: true }),
    owner(),
    // The user whose billing address this is: users.email_id points here.
    reference('billing_user', {
      table: 'users',
      targetColumn: 'email_id',
      rootColumn: 'id',
      fields: userSummary(),
    }),
  ],
});

export const EMAILS_ROUTES: CollectionRoutes = {
  path: '/api/demo/emails',
  bulk: true,
  probes: true,
  paginated: true,
};
