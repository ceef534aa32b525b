import { ScalarField, integer, string } from '../rest/core/fields';
import { defineTable } from '../rest/sql/tables';

/** Internal table (seeded, no routes): movie genres. */
export const GENRES = defineTable('genres', [integer('id'), string('name', { unique: true })]);

/** `{id, name}` of a genre. */
export const genreSummary = (): ScalarField[] => [integer('id'), string('name', { key: true })];
