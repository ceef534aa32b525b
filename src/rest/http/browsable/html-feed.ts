/**
 * The change feed's page (`/api/events`, `{collection}/events` in a browser): the page's events
 * as a table, newest first, each row linking to its record (not a deleted one), and the events
 * that come after it, live: `assets/feed.js` opens an EventSource on the same feed from the
 * page's `next` cursor and puts each new event at the top. Without events, the page says what
 * makes one. The JSON and XML stay below, as on every page.
 */
import { PageContext, Row } from './html-context';
import { linkTo } from './html-links';
import { Html, href, markup } from './html-template';

/** Where the feed leaves its heartbeat interval, in ms, for its page (Express `res.locals`). */
export const FEED_HEARTBEAT = 'feedHeartbeatMs';

/** The rows the page keeps at most as live events arrive (the oldest leave at the bottom). */
export const FEED_ROWS = 500;

/** What makes an event, for the empty page. */
export const NO_EVENTS =
  'No events yet. Every record created, updated or deleted through the API is an event ' +
  '(bulk writes and the marble actions too, one per record), in the order the changes were ' +
  'committed; they appear here as they happen.';

/** Whether a document answer is a page of the feed: `{results: [events], next}`. */
export function isFeedPage(value: unknown): value is { results: Row[]; next: string } {
  if (value === null || typeof value !== 'object') return false;
  const page = value as Row;
  return Array.isArray(page.results) && typeof page.next === 'string';
}

/** `after` of the page's `next` URL: where the live stream starts. */
function cursorOf(next: string): string {
  const query = next.indexOf('?');
  return new URLSearchParams(query === -1 ? '' : next.slice(query + 1)).get('after') ?? '0';
}

export function feedBody(page: { results: Row[]; next: string }, ctx: PageContext): Html {
  const paths = ctx.collectionPaths ?? {};
  const events = [...page.results].reverse();
  const feed = ctx.path.replace(/\/$/, '');
  return markup`<section
    class="feed"
    id="feed"
    aria-labelledby="events-h"
    data-events="${feed}"
    data-after="${cursorOf(page.next)}"
    data-max-rows="${String(FEED_ROWS)}"
    data-collections="${JSON.stringify(paths)}"
  >
    <h2 id="events-h">Events, newest first</h2>
    <p class="muted" id="feed-state" role="status" aria-live="polite">
      New events appear at the top as they happen${
        ctx.heartbeatMs
          ? ` (a heartbeat every ${String(ctx.heartbeatMs / 1000)} s keeps the stream open)`
          : ''
      }.
    </p>
    <p class="empty" id="feed-empty" ${events.length > 0 ? markup`hidden` : undefined}>
      ${NO_EVENTS}
    </p>
    <div class="table-wrap" tabindex="0" role="region" aria-labelledby="events-h">
      <table class="records events">
        <thead>
          <tr>
            <th scope="col">id</th>
            <th scope="col">at</th>
            <th scope="col">collection</th>
            <th scope="col">action</th>
            <th scope="col">record</th>
            <th scope="col">actor</th>
            <th scope="col">request id</th>
          </tr>
        </thead>
        <tbody id="feed-rows">
          ${events.map((event) => eventRow(event, paths, ctx))}
        </tbody>
      </table>
    </div>
    <p class="feed-next"><a href="${href(page.next)}">The events after these</a></p>
  </section>
  <script src="${href(ctx.assets.feed)}" defer></script>`;
}

/** One event's row; assets/feed.js builds the same for a live one. */
function eventRow(event: Row, paths: Record<string, string>, ctx: PageContext): Html {
  const collection = String(event.collection);
  const path = paths[collection];
  const id = String(event.record_id);
  const record =
    path && event.action !== 'deleted'
      ? markup`<a href="${href(linkTo(ctx, `${path}/${id}`))}">${id}</a>`
      : markup`${id}`;
  return markup`<tr data-id="${String(event.id)}">
    <th scope="row">${String(event.id)}</th>
    <td><time datetime="${String(event.at)}">${String(event.at)}</time></td>
    <td>${collection}</td>
    <td><span class="action action-${String(event.action)}">${String(event.action)}</span></td>
    <td>${record}</td>
    <td>${event.actor === null ? markup`<span class="muted">—</span>` : String(event.actor)}</td>
    <td>${event.request_id === null ? markup`<span class="muted">—</span>` : markup`<code>${String(event.request_id)}</code>`}</td>
  </tr>`;
}
