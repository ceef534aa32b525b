import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { chain, pipelineMiddleware } from '../../../../src/rest/http/request/pipeline';

/** Runs `handler` on a request of `method` (format `format`); resolves with what reached `next`. */
function run(
  handler: RequestHandler,
  method = 'GET',
  format?: string,
): Promise<{ error: unknown; seen: string[] }> {
  const req = { method, seen: [] as string[] } as unknown as Request & { seen: string[] };
  const res = { locals: { format } } as unknown as Response;
  return new Promise((resolve) => {
    void handler(req, res, ((error?: unknown) =>
      resolve({ error, seen: req.seen })) as NextFunction);
  });
}

const mark =
  (name: string): RequestHandler =>
  (req, _res, next) => {
    (req as Request & { seen: string[] }).seen.push(name);
    next();
  };

describe('chain', () => {
  it('should run the handlers in order, then the caller’s next', async () => {
    expect(await run(chain([mark('a'), mark('b'), mark('c')]))).toEqual({
      error: undefined,
      seen: ['a', 'b', 'c'],
    });
    expect(await run(chain([]))).toEqual({ error: undefined, seen: [] });
  });

  it('should stop at an error passed, thrown or rejected', async () => {
    const failure = new Error('no');
    const passed: RequestHandler = (_req, _res, next) => next(failure);
    const thrown: RequestHandler = () => {
      throw failure;
    };
    const rejected: RequestHandler = () => Promise.reject(failure);
    for (const bad of [passed, thrown, rejected]) {
      expect(await run(chain([mark('a'), bad, mark('c')]))).toEqual({
        error: failure,
        seen: ['a'],
      });
    }
  });
});

describe('pipelineMiddleware', () => {
  const pipeline = pipelineMiddleware({
    all: [mark('all')],
    reads: [mark('read')],
    pages: [mark('page')],
    writes: [mark('write')],
  });

  it('should run for each request only its kind’s handlers', async () => {
    expect((await run(pipeline, 'GET', 'json')).seen).toEqual(['all', 'read']);
    expect((await run(pipeline, 'HEAD')).seen).toEqual(['all', 'read']);
    expect((await run(pipeline, 'GET', 'html')).seen).toEqual(['all', 'read', 'page']);
    expect((await run(pipeline, 'POST', 'html')).seen).toEqual(['all', 'write']);
    expect((await run(pipeline, 'DELETE')).seen).toEqual(['all', 'write']);
  });
});
