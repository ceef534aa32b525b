/**
 * The feed's part in the browsable pages' live notice (docs/events.md, "On the browsable pages"):
 * before a collection's list or record page reads its data, the feed's position is read and left
 * for the page (`res.locals[LIVE_FEED]`); the page's script streams what comes after it.
 *
 * Position first, data second: every event at or below the position was committed before the
 * data was read, so the page shows its change; a change the page does not show gets a higher
 * position, and the notice. The position is read once the events committed so far have theirs
 * (the sequencer gives them within about one of its polls; waited for at most `waitMs`), or the
 * write a person has just made from the page, already on the reloaded page, would announce
 * itself as a change. The page's reads then go to the primary, where the position was read: a
 * replica behind it could lack a change the position already counts.
 */
import type { NextFunction, Request, Response } from 'express';
import { ResourceDefinition } from '../rest/core/resource';
import { LIVE_FEED, LiveFeed } from '../rest/http/browsable/html-live';
import { onPrimary } from '../rest/db/replicas';
import { EventStore } from './event-store';

export interface LiveOptions {
  /** How long a page waits at most for the committed events to get their positions, in ms. */
  waitMs: number;
  /** How often it looks meanwhile, in ms. */
  stepMs: number;
}

export const LIVE_TIMING: LiveOptions = { waitMs: 500, stepMs: 20 };

const RECORD = /^\/(\d{1,15})$/;

/** The collection and record of a page path: `/api/demo/marbles` or `/api/demo/marbles/7`. */
export function livePath(
  path: string,
  resources: readonly ResourceDefinition[],
): { resource: ResourceDefinition; record?: number } | undefined {
  for (const resource of resources) {
    if (path === resource.path || path === `${resource.path}/`) return { resource };
    if (!path.startsWith(`${resource.path}/`)) continue;
    const id = RECORD.exec(path.slice(resource.path.length));
    if (id) return { resource, record: Number(id[1]) };
  }
  return undefined;
}

/**
 * The feed's position, once the events committed before this call have one (or `waitMs`). Events
 * waiting for theirs are positioned now (`nudge`: any instance may), whoever wrote them: an
 * instance that stopped before positioning its own leaves them to the lease holder's poll, a
 * second away.
 */
export async function settledPosition(
  store: EventStore,
  options: LiveOptions,
  nudge: () => void = () => undefined,
): Promise<number> {
  const pending = await store.unpositioned();
  if (pending !== undefined) {
    nudge();
    const until = Date.now() + options.waitMs;
    while (Date.now() < until && (await store.waiting(pending))) {
      await new Promise((resolve) => setTimeout(resolve, options.stepMs));
    }
  }
  return (await store.bounds()).head;
}

/**
 * Express middleware for the HTML pages of the collections (`res.locals.format`, set by format
 * negotiation): the page's LiveFeed, then its reads on the primary. A failure to read the
 * position leaves the page without its notice, never without its data.
 */
export function livePages(
  store: EventStore,
  resources: readonly ResourceDefinition[],
  nudge: () => void,
  options: LiveOptions = LIVE_TIMING,
) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' || res.locals.format !== 'html') return next();
    // The path as asked (req.url may have been rewritten: a segment that is not percent-encoded).
    const query = req.originalUrl.indexOf('?');
    const asked = query === -1 ? req.originalUrl : req.originalUrl.slice(0, query);
    const page = livePath(asked.replace(/\.html$/i, ''), resources);
    if (!page) return next();
    settledPosition(store, options, nudge).then(
      (after) => {
        const live: LiveFeed = { events: `${page.resource.path}/events`, after };
        if (page.record !== undefined) live.record = page.record;
        res.locals[LIVE_FEED] = live;
        onPrimary(next);
      },
      () => next(),
    );
  };
}
