import { integer, string } from '../rest/core/fields';
import { defineResource } from '../rest/core/resource';
import { owner } from '../users/users.table';

export const PHONE_NUMBERS = defineResource({
  path: '/api/demo/phone_numbers',
  singular: 'phone_number',
  plural: 'phone_numbers',
  label: 'Phone number',
  table: 'phone_numbers',
  fields: [
    integer('id'),
    string('number', {
      searchable: true,
      unique: true,
      write: { required: true, notBlank: true, maxLength: 255 },
    }),
    ...owner(),
  ],
  probes: true,
  examples: {
    id: 1,
    deletable: [10, 11, 12],
    create: { number: '+1 555 0100', user_id: 3 },
    update: { user_id: 2 },
    updateAll: [
      { id: 5, user_id: 7 },
      { id: 6, user_id: 8 },
    ],
  },
  pagination: { pageSize: 30 },
});
