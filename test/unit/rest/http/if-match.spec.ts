import { ifMatchProblem } from '../../../../src/rest/http/safe-writes/if-match.guard';

const REQUIRED =
  'This write needs an If-Match header with the record\'s ETag (or "*"): read the record first.';
const NOT_HERE =
  'If-Match applies to writes of one record (PUT, PATCH, DELETE of /:id and the record actions), not here.';

describe('ifMatchProblem', () => {
  const problem = (conditional: boolean, required: boolean, given: boolean) => {
    const error = ifMatchProblem({ conditional, required }, given);
    return error && { status: error.getStatus(), message: error.message, headers: error.headers };
  };

  it('should let a write of one record go on with or without If-Match when not required', () => {
    expect(problem(true, false, true)).toBeUndefined();
    expect(problem(true, false, false)).toBeUndefined();
  });

  it('should refuse a write of one record without If-Match with 428 when it is required', () => {
    expect(problem(true, true, false)).toEqual({ status: 428, message: REQUIRED, headers: {} });
    expect(problem(true, true, true)).toBeUndefined();
  });

  it('should refuse If-Match on any other write with 400, required or not', () => {
    expect(problem(false, false, true)).toEqual({ status: 400, message: NOT_HERE, headers: {} });
    expect(problem(false, true, true)).toEqual({ status: 400, message: NOT_HERE, headers: {} });
  });

  it('should let any other write without If-Match go on', () => {
    expect(problem(false, false, false)).toBeUndefined();
    expect(problem(false, true, false)).toBeUndefined();
  });
});
