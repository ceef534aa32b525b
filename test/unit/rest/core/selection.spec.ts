import { InvalidQueryError } from '../../../../src/rest/core/list-query';
import { parseSelection, project, selectableFields } from '../../../../src/rest/core/selection';
import { MARBLES } from '../../../../src/marbles/marbles.resource';
import { MOVIES } from '../../../../src/movies/movies.resource';

const ALL =
  'id, name, radius_mm, price, is_discounted, created_at, updated_at, user, description, picture';

describe('field selection', () => {
  it('should offer the rendered fields in order, foreign keys left out, relations included', () => {
    expect(selectableFields(MARBLES).join(', ')).toBe(ALL);
    expect(selectableFields(MOVIES).join(', ')).toBe(
      'id, created_at, name, price, updated_at, main_genre, genres, users',
    );
  });

  it('should keep the declared order whatever the order asked', () => {
    expect(parseSelection({ only: 'user,name,id' }, MARBLES)).toEqual({
      fields: ['id', 'name', 'user'],
      key: 'id,name,user',
    });
  });

  it('should drop the except fields, combine with only, and take fields= for only', () => {
    expect(parseSelection({ except: 'description,picture' }, MARBLES)?.fields).toEqual(
      'id name radius_mm price is_discounted created_at updated_at user'.split(' '),
    );
    expect(parseSelection({ only: 'id,name,price', except: 'price' }, MARBLES)?.key).toBe(
      'id,name',
    );
    expect(parseSelection({ fields: 'name' }, MARBLES)?.key).toBe('name');
    expect(parseSelection({ only: 'id', fields: 'name' }, MARBLES)?.key).toBe('id');
  });

  it('should mean no selection when nothing is left out, or nothing is asked', () => {
    expect(parseSelection({}, MARBLES)).toBeUndefined();
    expect(parseSelection({ only: '' }, MARBLES)).toBeUndefined();
    expect(parseSelection({ only: ALL.replace(/ /g, '') }, MARBLES)).toBeUndefined();
    expect(parseSelection({ except: ' , ' }, MARBLES)).toBeUndefined();
  });

  it('should take the last of a repeated parameter and ignore blanks around names', () => {
    expect(parseSelection({ only: ['price', ' id , name '] }, MARBLES)?.key).toBe('id,name');
  });

  it('should refuse unknown names, each listed with the allowed ones', () => {
    let error: unknown;
    try {
      parseSelection({ only: 'id,colour,user_id', except: 'nope' }, MARBLES);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidQueryError);
    expect((error as InvalidQueryError).errors).toEqual({
      only: [
        `Unknown field "colour"; allowed: ${ALL}.`,
        `Unknown field "user_id"; allowed: ${ALL}.`,
      ],
      except: [`Unknown field "nope"; allowed: ${ALL}.`],
    });
  });

  it('should project records to the selection, leaving absent fields absent', () => {
    const selection = parseSelection({ only: 'id,user' }, MARBLES);
    expect(
      project(
        [
          { id: 1, name: 'a', user: { id: 2 } },
          { id: 3, name: 'b' },
        ],
        selection,
      ),
    ).toEqual([{ id: 1, user: { id: 2 } }, { id: 3 }]);
    const records = [{ id: 1 }];
    expect(project(records, undefined)).toBe(records);
  });
});
