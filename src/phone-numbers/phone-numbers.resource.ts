import { foreignKey, integer, reference, string, userSummary } from '../rest/fields';
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
    reference('user', {
      table: 'users',
      targetColumn: 'id',
      rootColumn: 'user_id',
      fields: userSummary(),
    }),
  ],
});
