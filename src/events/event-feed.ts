import type { Request, Response } from 'express';
import { UnknownQueryError } from '../rest/core/list-query';
import { closestName } from '../rest/core/names';
import { ShapelessBody } from '../rest/core/output/render';
import { ApiError } from '../rest/http/response/api-error';
import { renderResult } from '../rest/http/response/renderers';
import { ExpressRenderRequest, formatOf, requestUrl } from '../rest/http/response/respond';
import { formatIsExplicit, prefersStream } from '../rest/http/request/format';
import { FEED_HEARTBEAT } from '../rest/http/browsable/html-feed';
import { EventHub, setStreamHeaders } from './event-hub';
import { EventStore, FeedEvent, parseCursor } from './event-store';

/** `limit` of a page: 1-1000, 100 when not given. */
export const PAGE_LIMIT = { default: 100, max: 1000 };

/**
 * One request to a feed route: a page of events in the negotiated format, or, for
 * `Accept: text/event-stream`, the stream. `only`: the one collection of `{collection}/events`;
 * otherwise `?collections=` narrows the feed to those named.
 */
export class EventFeed {
  constructor(
    private readonly store: EventStore,
    private readonly hub: EventHub,
    /** The plural names of the collections served. */
    private readonly names: readonly string[],
    private readonly draining: () => boolean,
    /**
     * Where a stream without a cursor starts: the feed's head once the events of every write
     * committed before the call have their positions (live-pages.ts, settledPosition).
     */
    private readonly present: () => Promise<number>,
    /** STRICT_QUERY: a query parameter the feed does not take is a 400, as on a list. */
    private readonly strict = false,
  ) {}

  async serve(req: Request, res: Response, only?: string): Promise<void> {
    if (this.strict) refuseUnknown(req, only ? FEED_PARAMS : [...FEED_PARAMS, 'collections']);
    const collections = only ? [only] : this.collectionsOf(req);
    const lastEventId = req.headers['last-event-id'];
    const raw = typeof lastEventId === 'string' ? lastEventId : single(req, 'after');
    const after = raw === undefined ? undefined : parseCursor(raw.trim());
    if (raw !== undefined && after === undefined) {
      throw new ApiError(
        400,
        `"${raw}" is not a cursor of this feed: use the id of an event, or 0.`,
      );
    }
    if (after !== undefined && after > 0) await this.check(req, after);
    if (wantsStream(req, res)) {
      // HEAD: the stream's headers, and the answer ends (the connection serves the next request).
      if (req.method === 'HEAD') {
        res.status(200);
        setStreamHeaders(res);
        res.end();
        return;
      }
      if (this.draining()) {
        throw new ApiError(503, 'The service is shutting down; connect again.', undefined, {
          'Retry-After': '1',
        });
      }
      // Without a cursor, after every write acknowledged before this request, none of them in it.
      const from = after ?? (await this.present());
      return this.hub.open(res, from, collections && new Set(collections));
    }
    const limit = this.limitOf(req);
    const from = after ?? 0;
    const { head } = await this.store.bounds();
    const stored = await this.store.after(from, limit, head, collections);
    const next =
      stored.length === limit ? stored[stored.length - 1].position : Math.max(from, head);
    const body = new ShapelessBody({
      results: stored.map((s) => s.event) satisfies FeedEvent[],
      next: nextUrl(req, next),
    });
    // For the page in a browser: the figure it quotes is the streams' own.
    res.locals[FEED_HEARTBEAT] = this.hub.heartbeatMs;
    const rendered = renderResult(
      body,
      formatOf(res),
      undefined,
      new ExpressRenderRequest(req, 200),
    );
    for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
    res.status(200).send(rendered.body);
  }

  /**
   * A cursor this feed cannot resume from: older than what retention kept (410), or ahead of
   * the feed's head (409; the database was reset or restored, or the cursor belongs to another
   * service). Ahead is decided on the primary or writer, read again so that it reflects every
   * commit certified anywhere (EventStore.bounds), never on a replica or a node that may not
   * have applied the newest events: a valid cursor is never refused, it only waits.
   */
  private async check(req: Request, after: number): Promise<void> {
    const { head, purgedThrough } = await this.store.bounds();
    const oldest = nextUrl(req, 0);
    if (after < purgedThrough) {
      throw new ApiError(
        410,
        `The events after ${after} are no longer kept (EVENTS_RETENTION); start again from 0, the oldest kept: ${oldest}`,
        undefined,
        { Link: link(oldest, 'first', START_AGAIN) },
      );
    }
    if (after <= head) return;
    const settled = await this.store.bounds(true);
    if (after > settled.head) {
      throw new ApiError(
        409,
        `The cursor ${after} is ahead of this feed, whose newest event is ${settled.head} (was the database reset or restored?); start again from 0, the oldest kept: ${oldest}, or from ${settled.head} for new events only.`,
        undefined,
        {
          Link: [
            link(oldest, 'first', START_AGAIN),
            link(nextUrl(req, settled.head), 'last', 'New events only'),
          ].join(', '),
        },
      );
    }
  }

  private collectionsOf(req: Request): string[] | undefined {
    const raw = single(req, 'collections');
    if (raw === undefined || raw.trim() === '') return undefined;
    const names = [...new Set(raw.split(',').map((n) => n.trim()))];
    const unknown = names.filter((n) => !this.names.includes(n));
    if (unknown.length > 0) {
      throw new ApiError(
        400,
        `No collection named ${unknown.map((n) => `"${n}"`).join(', ')}; known: ${this.names.join(', ')}.`,
      );
    }
    return names;
  }

  private limitOf(req: Request): number {
    const raw = single(req, 'limit');
    if (raw === undefined) return PAGE_LIMIT.default;
    const limit = /^[1-9]\d{0,3}$/.test(raw) ? Number(raw) : NaN;
    if (!(limit <= PAGE_LIMIT.max)) {
      throw new ApiError(
        400,
        `limit must be a whole number from 1 to ${PAGE_LIMIT.max}, got "${raw}".`,
      );
    }
    return limit;
  }
}

/** What a feed's query may hold: the cursor, the page's size and the format. */
const FEED_PARAMS = ['after', 'limit', 'format'];

/**
 * With STRICT_QUERY: a 400 naming each parameter the feed does not take, in a list's words (and
 * the closest one it takes, when it looks like a slip: `limt` → `limit`).
 */
function refuseUnknown(req: Request, known: string[]): void {
  const unknown = Object.keys(req.query as Record<string, unknown>).filter(
    (name) => !known.includes(name),
  );
  if (unknown.length === 0) return;
  const message = (name: string) => {
    const closest = closestName(name, known);
    return closest
      ? `Unknown parameter; did you mean "${closest}"? The feed takes: ${known.join(', ')}.`
      : `Unknown parameter; the feed takes: ${known.join(', ')}.`;
  };
  throw new UnknownQueryError(Object.fromEntries(unknown.map((name) => [name, [message(name)]])));
}

/** A query parameter's value (the last, when repeated). */
function single(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  return typeof last === 'string' ? last : undefined;
}

/**
 * A stream for an Accept that prefers `text/event-stream` (prefersStream: `q=0` refuses it), unless
 * a suffix or `format=` named the page's format: those win over Accept, as on every route.
 */
function wantsStream(req: Request, res: Response): boolean {
  const accept = req.headers.accept;
  return accept !== undefined && !formatIsExplicit(res) && prefersStream(accept);
}

/** The title of the link to `?after=0` in a 409 or 410 (the browsable page shows it). */
const START_AGAIN = 'Start again from the oldest event kept';

/** One link of a `Link` header (RFC 8288), with a title for a person. */
function link(url: string, rel: string, title: string): string {
  return `<${url}>; rel="${rel}"; title="${title}"`;
}

/** The request's own URL with `after` moved on: the page to ask for next. */
function nextUrl(req: Request, after: number): string {
  const { base, query } = requestUrl(req);
  const params = new URLSearchParams(query);
  params.set('after', String(after));
  return `${base}?${params.toString()}`;
}
