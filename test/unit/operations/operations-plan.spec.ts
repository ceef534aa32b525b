/**
 * The body of `POST /api/operations` read into a plan (src/operations/operations-plan.ts): the
 * JSON and XML forms, refs to ids and foreign keys, every shape problem named by its place, and
 * OPERATIONS_MAX read from the environment.
 */
import { ConfigError, loadConfig } from '../../../src/config/configuration';
import { CollectionShape, planOf, withIds } from '../../../src/operations/operations-plan';
import { RecordError } from '../../../src/rest/core/errors';
import { parseXml } from '../../../src/rest/core/input/xml-input';

const shape = (
  plural: string,
  singular: string,
  actions: string[] = [],
  foreignKeys: [string, string][] = [],
): [string, CollectionShape] => [
  plural,
  {
    plural,
    singular,
    actions: new Map(actions.map((a) => [a, { body: a === 'adjust_price' }])),
    foreignKeys: new Map(foreignKeys),
  },
];

const COLLECTIONS = new Map([
  shape('marbles', 'marble', ['adjust_price', 'toggle_is_discounted']),
  shape('tags', 'tag'),
  shape('notes', 'note', [], [['tag_id', 'tags']]),
]);

function problem(body: unknown, max = 100): string {
  try {
    planOf(body, COLLECTIONS, max);
  } catch (error) {
    expect(error).toBeInstanceOf(RecordError);
    return (error as Error).message;
  }
  throw new Error('no problem found');
}

describe('operations plan', () => {
  it('should read a JSON body and an XML array whose root is <operations>', async () => {
    const operations = [{ op: 'create', collection: 'marbles', record: { name: 'x' } }];
    const planned = [
      { place: 1, op: 'create', collection: 'marbles', record: { name: 'x' }, refFields: [] },
    ];
    expect(planOf({ operations }, COLLECTIONS, 100)).toEqual(planned);
    const xml = await parseXml(
      '<operations type="array"><operation><op>create</op><collection>marbles</collection>' +
        '<record><name>x</name></record></operation></operations>',
    );
    expect(planOf(xml, COLLECTIONS, 100)).toEqual(planned);
    // A bare JSON array, or an XML array of another name, is not the body's shape.
    expect(problem(operations)).toMatch(/^The body must be \{"operations": \[\.\.\.\]\}/);
    expect(
      problem(await parseXml('<marbles type="array"><marble><name>x</name></marble></marbles>')),
    ).toMatch(/^The body must be/);
  });

  it('should resolve refs to the create that makes them, as ids and as foreign keys', () => {
    const plan = planOf(
      {
        operations: [
          { op: 'create', collection: 'tags', ref: 't', record: { label: 'a' } },
          {
            op: 'create',
            collection: 'notes',
            record: { note: { title: 'n', tag_id: { ref: 't' } } },
          },
          {
            op: 'update',
            collection: 'tags',
            id: { ref: 't' },
            record: { label: 'b' },
            if_match: '"1.1"',
          },
        ],
      },
      COLLECTIONS,
      100,
    );
    expect(plan[1].refFields).toEqual([{ field: 'tag_id', ref: 't', from: 1 }]);
    expect(plan[2]).toMatchObject({ id: { ref: 't', from: 1 }, condition: ['"1.1"'] });
    expect(withIds(plan[1].record, 'note', plan[1].refFields, () => 41)).toEqual({
      note: { title: 'n', tag_id: 41 },
    });
  });

  it('should name every problem by its place, counted from 1', () => {
    expect(
      problem({
        operations: [
          { op: 'create', collection: 'marbles', ref: 'm', id: 3, record: {}, extra: 1 },
          { op: 'destroy', collection: 'marbles', id: 'seven', record: {} },
          { op: 'update', collection: 'marbles', id: 1 },
          { op: 'toggle_is_discounted', collection: 'marbles', id: 1, record: { x: 1 } },
          { op: 'create', collection: 'notes', record: { tag_id: { ref: 'm' } } },
          { op: 'update', collection: 'marbles', id: 1, record: {}, ref: 'r', if_match: 'nope' },
          { collection: 'marbles' },
        ],
      }),
    ).toBe(
      'Nothing was run: operation 1 has unknown key extra; operation 1 is a create: it takes no id; ' +
        'operation 2 has id "seven", not a positive integer or {"ref": "<name>"}; ' +
        'operation 2 is a destroy: it takes no record; operation 3 has no record; ' +
        'operation 4 is toggle_is_discounted: it takes no record; ' +
        'operation 5 sets tag_id to ref "m", a record of marbles; tag_id holds an id of tags; ' +
        'operation 6 is not a create: only a create is named by ref; ' +
        'operation 6 has an if_match that is not an entity tag: "nope"; operation 7 has no op.',
    );
  });

  it('should refuse more than the limit, and an empty list', () => {
    const op = { op: 'toggle_is_discounted', collection: 'marbles', id: 1 };
    expect(problem({ operations: [op, op, op] }, 2)).toBe(
      '3 operations in one request; at most 2 are accepted. Nothing was run.',
    );
    expect(problem({ operations: [] })).toBe('The list of operations is empty: send at least one.');
  });
});

describe('OPERATIONS_MAX', () => {
  it('should be 100 unless set, 1 to 1000', () => {
    expect(loadConfig({}).operationsMax).toBe(100);
    expect(loadConfig({ OPERATIONS_MAX: '250' }).operationsMax).toBe(250);
    for (const value of ['0', '1001', 'ten']) {
      expect(() => loadConfig({ OPERATIONS_MAX: value })).toThrow(ConfigError);
      expect(() => loadConfig({ OPERATIONS_MAX: value })).toThrow(/OPERATIONS_MAX/);
    }
  });
});
