/**
 * Atomic operations over declared collections (the fixture collections, added as a user adds
 * one): a create named by `ref`, its id used by a later operation as `id` and as the value of a
 * foreign key of another declared collection (fixture_notes.tag_id → fixture_tags); a ref in a
 * field that holds no record's id, or of the wrong collection, refused before anything runs.
 */
import { COLLECTIONS, FIXTURE_COLLECTIONS } from '../../sources';
import { USERS } from '../support/fixtures';
import { useApp } from '../support/harness';
import { expectJson } from '../support/http';

describe('atomic operations: refs across declared collections', () => {
  const t = useApp({
    collections: [...COLLECTIONS, ...FIXTURE_COLLECTIONS],
    seedEach: { users: USERS },
  });

  const post = (body: unknown) =>
    t
      .http()
      .post('/api/operations')
      .send(body as object);

  it('should fill a foreign key and an id with the record a create of the request made', async () => {
    const res = await post({
      operations: [
        {
          op: 'create',
          collection: 'fixture_tags',
          ref: 'tag',
          record: { label: 'urgent', user_id: 1 },
        },
        {
          op: 'create',
          collection: 'fixture_notes',
          ref: 'note',
          record: { title: 'Call back', tag_id: { ref: 'tag' } },
        },
        {
          op: 'update',
          collection: 'fixture_tags',
          id: { ref: 'tag' },
          record: { fixture_tag: { weight: 90 } },
        },
        {
          op: 'update',
          collection: 'fixture_notes',
          id: { ref: 'note' },
          record: { pinned: true },
        },
      ],
    });

    expectJson(res, 200);
    const [tag] = await t.rows('fixture_tags');
    const [note] = await t.rows('fixture_notes');
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([201, 201, 200, 200]);
    expect(res.body.results[0].record).toMatchObject({ id: tag.id, label: 'urgent', weight: 50 });
    expect(res.body.results[2].record).toMatchObject({ id: tag.id, weight: 90 });
    expect(res.body.results[3].record).toMatchObject({
      id: note.id,
      title: 'Call back',
      pinned: true,
    });
    expect(note).toMatchObject({ tag_id: tag.id, title: 'Call back' });
  });

  it('should refuse a ref in a field that holds no id, or an id of another collection, before anything runs', async () => {
    const res = await post({
      operations: [
        { op: 'create', collection: 'fixture_notes', ref: 'note', record: { title: 'x' } },
        { op: 'create', collection: 'fixture_notes', record: { title: { ref: 'note' } } },
        {
          op: 'create',
          collection: 'fixture_notes',
          record: { title: 'y', tag_id: { ref: 'note' } },
        },
        {
          op: 'create',
          collection: 'fixture_notes',
          record: { title: 'z', tag_id: { ref: 'later' } },
        },
      ],
    });

    expectJson(res, 400);
    expect(res.body).toEqual({
      message:
        "Nothing was run: operation 2 sets title to a ref, but title holds no record's id; " +
        'operation 3 sets tag_id to ref "note", a record of fixture_notes; tag_id holds an id of fixture_tags; ' +
        'operation 4 uses ref "later" before any create names it.',
    });
    expect(await t.rows('fixture_notes')).toEqual([]);
  });

  it('should roll the declared collections back with the rest when a later operation fails', async () => {
    const res = await post({
      operations: [
        { op: 'create', collection: 'fixture_tags', ref: 'tag', record: { label: 'urgent' } },
        {
          op: 'create',
          collection: 'fixture_notes',
          record: { title: 'Call back', tag_id: { ref: 'tag' } },
        },
        { op: 'create', collection: 'fixture_tags', record: { label: 'urgent' } },
      ],
    });

    expectJson(res, 400);
    expect(res.body).toEqual({
      message: 'Operation 3 (create fixture_tags): Validation failed; nothing was saved.',
      operation: 3,
      errors: { label: ['A fixture tag with this label already exists.'] },
    });
    expect(await t.rows('fixture_tags')).toEqual([]);
    expect(await t.rows('fixture_notes')).toEqual([]);
  });
});
