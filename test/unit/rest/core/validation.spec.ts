import { validate } from 'class-validator';
import { EMAILS } from '../../../../src/emails/emails.resource';
import { MARBLES } from '../../../../src/marbles/marbles.resource';
import { MOVIES } from '../../../../src/movies/movies.resource';
import { integer, string } from '../../../../src/rest/core/fields';
import { ResourceDefinition, defineResource } from '../../../../src/rest/core/resource';
import {
  inputAccepted,
  inputClass,
  inputKey,
  writableFields,
} from '../../../../src/rest/core/input/validation';

/** Weights from 0 to 100: an integer range, declared. */
const WEIGHTS = defineResource({
  path: '/weights',
  singular: 'weight',
  plural: 'weights',
  label: 'Weight',
  table: 'weights',
  fields: [integer('id'), string('label'), integer('weight', { write: { min: 0, max: 100 } })],
  bulk: false,
  examples: { id: 1, deletable: [1], create: {}, update: {} },
});

/** Values that sit on either side of every rule the declarations state, and of every type. */
const SAMPLES: unknown[] = [
  0,
  1,
  -1,
  1.5,
  2147483647,
  2147483648,
  -2147483647,
  -2147483648,
  Number.NaN,
  true,
  false,
  '',
  ' ',
  'a',
  'x'.repeat(255),
  'x'.repeat(256),
  'é'.repeat(100),
  '😀'.repeat(150),
  'someone@example.com',
  'not an e-mail',
  '1',
  '0.01',
  '0.00',
  '0',
  '-1.00',
  '12.345',
  '99999999.99',
  '100000000.00',
  '1e3',
  100,
  101,
  [],
  [1, 2, 3],
  [0],
  [1, '2'],
  [2147483648],
  Array.from({ length: 1001 }, (_, i) => i + 1),
  {},
  null,
  undefined,
];

/** Whether class-validator finds nothing wrong with `values`, as the input reader runs it. */
async function dtoAccepts(resource: ResourceDefinition, values: Record<string, unknown>) {
  const Dto = inputClass(resource);
  const failures = await validate(Object.assign(new Dto(), values), {
    forbidUnknownValues: false,
    stopAtFirstError: true,
  });
  return failures.length === 0;
}

describe('inputAccepted', () => {
  for (const resource of [MARBLES, EMAILS, MOVIES, WEIGHTS]) {
    it(`agrees with the class-validator DTO on every sample of ${resource.plural}`, async () => {
      const keys = writableFields(resource).map(inputKey);
      const accepted = inputAccepted(resource);
      let agreed = 0;
      for (const key of keys) {
        for (const sample of SAMPLES) {
          const values = { [key]: sample };
          expect([key, sample, accepted(values)]).toEqual([
            key,
            sample,
            await dtoAccepts(resource, values),
          ]);
          agreed++;
        }
      }
      expect(agreed).toBe(keys.length * SAMPLES.length);
    });
  }

  it('should keep an integer within its declared range, with the bound in the message', async () => {
    const accepted = inputAccepted(WEIGHTS);
    expect([0, 100, -1, 101].map((weight) => accepted({ weight }))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const Dto = inputClass(WEIGHTS);
    const [failure] = await validate(Object.assign(new Dto(), { weight: 101 }));
    expect(failure.constraints).toEqual({ max: 'Must be at most 100.' });
  });

  it('accepts a whole valid marble and refuses it with one bad field', () => {
    const accepted = inputAccepted(MARBLES);
    const marble = { name: 'Cat eye', radius_mm: 8, price: '0.50', user_id: 1 };
    expect(accepted(marble)).toBe(true);
    expect(accepted({ ...marble, price: '0.501' })).toBe(false);
  });
});
