/**
 * The live notice of the list and record pages (docs/events.md, "On the browsable pages"): an
 * empty polite live region that carries, in data- attributes, the collection's feed and the feed's
 * position when the page's data was read, and the script that fills it when a change arrives
 * (`assets/live.js`, an EventSource on the feed from that position). The feed's side sets the
 * position in `res.locals[LIVE_FEED]` before the route reads its data; without it (feed off,
 * reads that need a token, any other page) the page has no notice.
 */
import { Html, href, markup } from './html-template';

/** Where the feed's middleware leaves the page's LiveFeed (Express `res.locals`). */
export const LIVE_FEED = 'liveFeed';

/** What a page's notice listens to. */
export interface LiveFeed {
  /** The collection's feed: `/api/demo/marbles/events`. */
  events: string;
  /** The feed's position when the page's data was read: the notice shows what comes after. */
  after: number;
  /** On a record page, the record's id: only its changes count. */
  record?: number;
}

/** The notice of a page (nothing for an error page or a page without a feed). */
export function liveNotice(live: LiveFeed | undefined, status: number, script: string): Html {
  if (!live || status >= 300) return markup``;
  return markup`<p
      id="live"
      class="live"
      role="status"
      aria-live="polite"
      data-events="${live.events}"
      data-after="${String(live.after)}"
      data-record="${live.record === undefined ? '' : String(live.record)}"></p>
    <script src="${href(script)}" defer></script>`;
}
