import { boolean, decimal, integer, string, timestamp } from '../rest/core/fields';
import { defineResource } from '../rest/core/resource';
import { owner } from '../users/users.table';

export const MARBLES = defineResource({
  path: '/api/demo/marbles',
  singular: 'marble',
  plural: 'marbles',
  label: 'Marble',
  table: 'marbles',
  fields: [
    integer('id'),
    string('name', {
      searchable: true,
      unique: true,
      write: { required: true, notBlank: true, maxLength: 255 },
    }),
    integer('radius_mm', { write: { min: 1, default: 1 } }),
    decimal('price', {
      precision: 6,
      scale: 2,
      write: { nullable: true, greaterThan: '0', max: '9999.99', default: null },
    }),
    boolean('is_discounted', { write: { default: false } }),
    timestamp('created_at', { setOn: 'create' }),
    timestamp('updated_at', { setOn: 'write' }),
    ...owner({ optional: true }),
    // MySQL TEXT holds 64 KiB: 10 000 characters of up to 4 bytes fit. Ordered through an index
    // on its first 100 characters (migration 1764000000000-description-key).
    string('description', {
      searchable: true,
      text: true,
      prefixKey: { column: 'description_key', length: 100 },
      write: { default: '', maxLength: 10_000 },
    }),
    // No route sets it: what a picture holds (a URL, an upload) is left open.
    string('picture', { nullable: true }),
  ],
  examples: {
    id: 1,
    deletable: [10, 11, 12],
    create: { name: 'Example Glass Marble', radius_mm: 12, price: '12.5', user_id: 3 },
    update: { price: '3.5' },
    updateAll: [
      { id: 5, radius_mm: 9 },
      { id: 6, is_discounted: true },
    ],
  },
  pagination: { pageSize: 30 },
});
