import express from 'express';
import request from 'supertest';
import { prefilterRoutes } from '../../../../src/rest/http/request/route-table';

/** An Express app with a few routes in the shapes Nest registers, each answering its pattern. */
function app(prefiltered: boolean) {
  const server = express();
  for (const path of [
    '/api/demo/marbles/events',
    '/api/demo/marbles/:id/adjust_price',
    '/api/demo/marbles',
    '/api/demo/marbles/:id',
    '/api/plain/movies/:id',
    '/{*rest}',
  ]) {
    server.get(path, (_req, res) => res.send(path));
  }
  const stack = (server as unknown as { router: { stack: never[] } }).router.stack;
  if (prefiltered) expect(prefilterRoutes(stack)).toBe(5);
  return server;
}

describe('prefilterRoutes', () => {
  it('should leave every path to the route it went to before', async () => {
    const before = app(false);
    const after = app(true);
    for (const path of [
      '/api/demo/marbles/1',
      '/API/Demo/Marbles/1',
      '/api/demo/marbles/',
      '/api/demo/marbles',
      '/api/demo/marbles/events',
      '/api/demo/marbles/7/adjust_price',
      '/api/plain/movies/3',
      '/api/plain/movies',
      '/api/demo/%6Darbles/1',
      '/nowhere',
    ]) {
      const [a, b] = await Promise.all([request(before).get(path), request(after).get(path)]);
      expect([path, b.status, b.text]).toEqual([path, a.status, a.text]);
    }
  });
});
