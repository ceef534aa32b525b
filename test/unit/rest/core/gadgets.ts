/**
 * The made-up collection the renderer specs write (csv.spec.ts, render.spec.ts): `gadgets`, with
 * the scalar fields a spec chooses, then an owner (`user_id`, shown as `user`) and `genres`, the
 * two kinds of nested field every format has to write.
 */
import * as field from '../../../../src/rest/core/fields';
import { defineResource } from '../../../../src/rest/core/resource';
import { genreSummary } from '../../../../src/genres/genres.table';
import { userSummary } from '../../../../src/users/users.table';

export function gadgets(scalars: field.ScalarField[]) {
  return defineResource({
    bulk: false,
    examples: { id: 1, deletable: [1], create: {}, update: {} },
    path: '/api/demo/gadgets',
    singular: 'gadget',
    plural: 'gadgets',
    label: 'Gadget',
    table: 'gadgets',
    fields: [
      field.integer('id'),
      ...scalars,
      field.foreignKey('user_id', 'users'),
      field.reference('user', {
        table: 'users',
        targetColumn: 'id',
        rootColumn: 'user_id',
        fields: userSummary(),
      }),
      field.collection('genres', {
        through: 'gadget_genres',
        ownerColumn: 'gadget_id',
        targetColumn: 'genre_id',
        table: 'genres',
        fields: genreSummary(),
        inIndex: true,
      }),
    ],
  });
}
