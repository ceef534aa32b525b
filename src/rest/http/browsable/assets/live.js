/* The live notice of the browsable list and record pages (docs/events.md, "On the browsable
 * pages"): an EventSource on the collection's feed, from the position the page was drawn at
 * (`data-after`), that fills the page's polite live region when something changed since: any
 * record of the collection on a list page, the page's own record on a record page. The stream is
 * closed once the notice shows (the page is stale; a reload tells the rest) and while the tab is
 * hidden (a browser opens few connections to one server), then resumed from the last event seen.
 * Loaded from a file under the page's strict Content-Security-Policy: no inline code. */
/* global document, location, EventSource */
'use strict';

(function () {
  var notice = document.getElementById('live');
  if (!notice || typeof EventSource === 'undefined') return;
  var feed = notice.getAttribute('data-events');
  var after = notice.getAttribute('data-after');
  var record = notice.getAttribute('data-record');
  var source = null;
  var retry = null;
  var retryMs = 5000;
  var shown = false;

  function open() {
    if (shown || source || document.visibilityState === 'hidden') return;
    clearTimeout(retry);
    source = new EventSource(feed + '?after=' + encodeURIComponent(after));
    ['created', 'updated', 'deleted'].forEach(function (action) {
      source.addEventListener(action, changed);
    });
    source.addEventListener('open', function () {
      retryMs = 5000;
    });
    source.addEventListener('error', function () {
      // A dropped stream is reconnected by the browser with Last-Event-ID; a refused one (an
      // instance shutting down answers 503) it gives up on: try again later, from the last id.
      if (!source || source.readyState !== EventSource.CLOSED) return;
      close();
      retry = setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, 300000);
    });
  }

  function close() {
    if (source) source.close();
    source = null;
  }

  function changed(event) {
    if (event.lastEventId) after = event.lastEventId;
    var change;
    try {
      change = JSON.parse(event.data);
    } catch {
      return;
    }
    if (record && String(change.record_id) !== record) return;
    shown = true;
    close();
    show(change);
  }

  function show(change) {
    var gone = record && change.action === 'deleted';
    var text = record
      ? gone
        ? 'This record has been deleted since the page was loaded.'
        : 'This record has changed since the page was loaded.'
      : 'This list has changed since the page was loaded (record ' +
        change.record_id +
        ' ' +
        change.action +
        ').';
    var link = document.createElement('a');
    // A deleted record's page would be a 404: its list instead.
    link.href = gone ? feed.replace(/\/events$/, '') : location.href;
    link.textContent = gone ? 'Open the list' : 'Reload';
    notice.textContent = text + ' ';
    notice.appendChild(link);
  }

  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') {
      clearTimeout(retry);
      close();
    } else open();
  });
  open();
})();
