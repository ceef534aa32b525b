import { foreignKey, integer, string, owner } from '../rest/fields';
import { CollectionRoutes } from '../rest/collection.controller';
import { defineResource } from '../rest/resource';

export const PHONE_NUMBERS = defineResource({
  singular: 'phone_number',
  plural: 'phone_numbers',
  label: 'Phone number',
  table: 'phone_numbers',
  fields: [
    integer('id'),
    string('number', {
      searchable: true,
      write: { required: true, notBlank: true, maxLength: 255, unique: true },
    }),
    foreignKey('user_id', 'users', { required: true }),
    owner(),
  ],
});

export const PHONE_NUMBERS_ROUTES: CollectionRoutes = {
  path: '/api/demo/phone_numbers',
  bulk: true,
  probes: true,
  paginated: true,
};
