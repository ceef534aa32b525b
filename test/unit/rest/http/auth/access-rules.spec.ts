import { AccessRules, grants } from '../../../../../src/rest/http/auth/access-rules';

const COLLECTIONS = [
  { path: '/api/demo/marbles', plural: 'marbles' },
  { path: '/api/demo/phone_numbers', plural: 'phone_numbers' },
  { path: '/api/plain/movies', plural: 'movies' },
];

describe('AccessRules: the scopes a request needs', () => {
  const open = new AccessRules(COLLECTIONS, false);
  const closed = new AccessRules(COLLECTIONS, true);
  const scopes = (rules: AccessRules, method: string, path: string) =>
    rules.requirementOf(method, path)?.scopes;

  it('should need the collection’s write scope or records:write for every write under its path', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of [
        '/api/demo/marbles',
        '/api/demo/marbles/7',
        '/api/demo/marbles/7/adjust_price',
      ]) {
        expect(scopes(open, method, path)).toEqual(['marbles:write', 'records:write']);
      }
    }
    expect(scopes(open, 'DELETE', '/api/demo/phone_numbers/1')).toEqual([
      'phone_numbers:write',
      'records:write',
    ]);
  });

  it('should not take a path that only begins like a collection’s for it', () => {
    expect(scopes(open, 'POST', '/api/demo/marblesque')).toEqual(['records:write']);
  });

  it('should need records:write for a write anywhere else, open paths included', () => {
    for (const path of ['/', '/api', '/health/live', '/api/openapi.json', '/nowhere']) {
      expect(scopes(open, 'POST', path)).toEqual(['records:write']);
    }
  });

  it('should leave reads open unless reads are required, and OPTIONS always', () => {
    expect(open.requirementOf('GET', '/api/demo/marbles')).toBeUndefined();
    expect(closed.requirementOf('OPTIONS', '/api/demo/marbles')).toBeUndefined();
    expect(scopes(closed, 'GET', '/api/demo/marbles/events')).toEqual([
      'marbles:read',
      'records:read',
      'marbles:write',
      'records:write',
    ]);
    expect(scopes(closed, 'HEAD', '/api/plain/movies/1')).toContain('movies:read');
    expect(scopes(closed, 'GET', '/api/events')).toEqual(['records:read', 'records:write']);
  });

  it('should keep the front door, health, the documents and the assets open to reads', () => {
    for (const path of [
      '/',
      '/api',
      '/api/',
      '/health/ready',
      '/api/openapi.json',
      '/api/docs/',
      '/assets/x.css',
    ]) {
      expect(closed.requirementOf('GET', path)).toBeUndefined();
    }
  });

  it('should grant with any one of the scopes', () => {
    const requirement = closed.requirementOf('GET', '/api/demo/marbles')!;
    expect(grants(new Set(['marbles:write']), requirement)).toBe(true);
    expect(grants(new Set(['emails:read', 'profile']), requirement)).toBe(false);
  });
});
