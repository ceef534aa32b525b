/* The change feed's page (html-feed.ts): an EventSource on the page's feed from its `next`
 * cursor (`data-after`) that puts each new event at the top of the table, newest first, in the
 * row the server draws for one, keeps at most `data-max-rows` rows, and hides the empty state
 * once an event is there. The stream is closed while the tab is hidden (a browser opens few
 * connections to one server) and resumed from the last event seen. Loaded from a file under the
 * page's strict Content-Security-Policy: no inline code. */
/* global document, EventSource */
'use strict';

(function () {
  var section = document.getElementById('feed');
  var rows = document.getElementById('feed-rows');
  var empty = document.getElementById('feed-empty');
  var state = document.getElementById('feed-state');
  if (!section || !rows || typeof EventSource === 'undefined') return;
  var feed = section.getAttribute('data-events');
  var after = section.getAttribute('data-after');
  var maxRows = Number(section.getAttribute('data-max-rows')) || 500;
  var paths = {};
  try {
    paths = JSON.parse(section.getAttribute('data-collections') || '{}');
  } catch {
    paths = {};
  }
  var html = /\.html$/.test(document.location.pathname);
  var source = null;
  var retry = null;
  var retryMs = 5000;

  function open() {
    if (source || document.visibilityState === 'hidden') return;
    clearTimeout(retry);
    source = new EventSource(feed + '?after=' + encodeURIComponent(after));
    ['created', 'updated', 'deleted'].forEach(function (action) {
      source.addEventListener(action, arrived);
    });
    source.addEventListener('open', function () {
      retryMs = 5000;
      section.setAttribute('data-live', 'open');
    });
    source.addEventListener('error', function () {
      if (!source || source.readyState !== EventSource.CLOSED) return;
      close();
      section.setAttribute('data-live', 'closed');
      state.textContent =
        'The live stream stopped; it is tried again shortly (or reload the page).';
      retry = setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, 300000);
    });
  }

  function close() {
    if (source) source.close();
    source = null;
  }

  function cell(tag, content) {
    var element = document.createElement(tag);
    if (typeof content === 'string') element.textContent = content;
    else if (content) element.appendChild(content);
    return element;
  }

  function muted() {
    var span = document.createElement('span');
    span.className = 'muted';
    span.textContent = '—';
    return span;
  }

  function arrived(message) {
    var event;
    try {
      event = JSON.parse(message.data);
    } catch {
      return;
    }
    if (message.lastEventId) after = message.lastEventId;
    // In feed order: one at or below the newest row shown is there already.
    var top = rows.firstElementChild;
    if (top && Number(event.id) <= Number(top.getAttribute('data-id'))) return;
    var row = document.createElement('tr');
    row.setAttribute('data-id', String(event.id));
    row.className = 'new';
    row.appendChild(cell('th', String(event.id))).setAttribute('scope', 'row');
    var time = document.createElement('time');
    time.setAttribute('datetime', String(event.at));
    time.textContent = String(event.at);
    row.appendChild(cell('td', time));
    row.appendChild(cell('td', String(event.collection)));
    var action = document.createElement('span');
    action.className = 'action action-' + String(event.action);
    action.textContent = String(event.action);
    row.appendChild(cell('td', action));
    var path = paths[event.collection];
    var id = String(event.record_id);
    if (path && event.action !== 'deleted') {
      var link = document.createElement('a');
      link.href = path + '/' + encodeURIComponent(id) + (html ? '.html' : '');
      link.textContent = id;
      row.appendChild(cell('td', link));
    } else row.appendChild(cell('td', id));
    row.appendChild(cell('td', event.actor === null ? muted() : String(event.actor)));
    if (event.request_id === null) row.appendChild(cell('td', muted()));
    else row.appendChild(cell('td', cell('code', String(event.request_id))));
    rows.insertBefore(row, rows.firstChild);
    while (rows.children.length > maxRows) rows.removeChild(rows.lastChild);
    empty.hidden = true;
    state.textContent =
      'Event ' + event.id + ' (' + event.collection + ' ' + id + ' ' + event.action + ') arrived.';
  }

  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') {
      clearTimeout(retry);
      close();
    } else open();
  });
  open();
})();
