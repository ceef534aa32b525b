import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isRead } from '../response/methods';

/**
 * The request pipeline, built once at start: the Express middlewares of `configureApp` composed
 * into one Express layer (a layer costs a path match and a `next` of Express's router on every
 * request), and split by the kind of request, so that a read runs only what a read needs. What a
 * switched-off capability would add is simply not in the lists: nothing of it runs, not even a
 * check that finds it off.
 */
export interface Pipeline {
  /** Every request, in order. */
  all: RequestHandler[];
  /** Then, for GET, HEAD and OPTIONS whose negotiated format is not the HTML page. */
  reads: RequestHandler[];
  /** Then, for a GET or HEAD of an HTML page (`res.locals.format === 'html'`). */
  pages: RequestHandler[];
  /** Then, for any other method (POST, PUT, PATCH, DELETE…). */
  writes: RequestHandler[];
}

/** The lists of a pipeline, for the tests and the benchmark: which middleware runs for what. */
export const PIPELINE = Symbol('request pipeline');

/**
 * Runs `handlers` in order as one middleware, as Express's router would: `next(error)` or a throw
 * (or a rejected promise) ends the chain with that error, `next()` goes on, and the last one's
 * `next()` is the caller's. One handler is returned as it is; none, a middleware that goes on.
 */
export function chain(handlers: readonly RequestHandler[]): RequestHandler {
  const list = [...handlers];
  if (list.length === 0) return (_req, _res, next) => next();
  if (list.length === 1) return list[0];
  return (req: Request, res: Response, done: NextFunction) => {
    let at = 0;
    const next = (error?: unknown): void => {
      // 'route' and 'router' (skip the rest of this route or router) leave the chain too.
      if (error !== undefined && error !== null && error !== false) return done(error);
      if (at === list.length) return done();
      const handler = list[at++];
      try {
        const result: unknown = handler(req, res, next);
        if (result instanceof Promise) result.catch((e: unknown) => done(e ?? new Error()));
      } catch (e) {
        done(e);
      }
    };
    next();
  };
}

/** The pipeline as the one Express middleware `configureApp` mounts. */
export function pipelineMiddleware(pipeline: Pipeline): RequestHandler {
  const reads = pipeline.reads.length > 0 ? chain(pipeline.reads) : undefined;
  const pages = chain([...pipeline.reads, ...pipeline.pages]);
  const writes = chain(pipeline.writes);
  const pagesDiffer = pipeline.pages.length > 0;
  const route = (req: Request, res: Response, next: NextFunction) => {
    if (!isRead(req.method)) return writes(req, res, next);
    if (pagesDiffer && res.locals.format === 'html') return pages(req, res, next);
    return reads ? reads(req, res, next) : next();
  };
  return chain([...pipeline.all, route]);
}
