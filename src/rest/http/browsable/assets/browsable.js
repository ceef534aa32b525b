/* The browsable API's one script: writes from the page's forms as fetch calls asking for JSON,
 * the API token in this tab's sessionStorage, and the small conveniences of the query form.
 * Loaded from a file under a strict Content-Security-Policy: no inline code anywhere. */
/* global document, window, location */
'use strict';

(function () {
  var TOKEN_KEY = 'records-api-token';
  var FLASH_KEY = 'records-flash';

  function store(key, value) {
    try {
      if (value === null) sessionStorage.removeItem(key);
      else sessionStorage.setItem(key, value);
    } catch {
      /* storage unavailable: nothing is kept */
    }
  }
  function stored(key) {
    try {
      return sessionStorage.getItem(key);
    } catch {
      return null;
    }
  }

  // The token: in sessionStorage only, never in a URL, a cookie or the page's HTML.
  var tokenInput = document.getElementById('api-token');
  var tokenState = document.getElementById('token-state');
  function showTokenState() {
    if (tokenState) tokenState.textContent = stored(TOKEN_KEY) ? 'Token set for this tab.' : '';
  }
  if (tokenInput) {
    tokenInput.value = stored(TOKEN_KEY) || '';
    document.getElementById('token-form').addEventListener('submit', function (event) {
      event.preventDefault();
      store(TOKEN_KEY, tokenInput.value.trim() || null);
      showTokenState();
    });
    document.getElementById('token-forget').addEventListener('click', function () {
      tokenInput.value = '';
      store(TOKEN_KEY, null);
      showTokenState();
    });
    showTokenState();
  }

  // A message carried over a navigation after a successful write. It sticks to the top of the
  // window (the stylesheet), so it is in view wherever the reloaded page comes back scrolled to.
  var flash = document.getElementById('flash');
  var flashBox = document.getElementById('flash-box');
  var carried = stored(FLASH_KEY);
  if (flash && carried) {
    flash.textContent = carried;
    flashBox.hidden = false;
    store(FLASH_KEY, null);
    document.getElementById('flash-close').addEventListener('click', function () {
      flashBox.hidden = true;
    });
  }

  /** The page of `path` asked for the way this page was (Accept, `.html` or `format=html`). */
  function pageFor(path) {
    var here = new URL(location.href);
    if (/\.html$/.test(here.pathname)) return path + '.html';
    if (here.searchParams.get('format') === 'html') return path + '?format=html';
    return path;
  }

  // Query form: only the parameters that have a value, so the URL says what was asked.
  var queryForm = document.getElementById('query-form');
  if (queryForm) {
    queryForm.addEventListener('submit', function () {
      Array.prototype.forEach.call(queryForm.elements, function (el) {
        if (el.name && el.value === '') el.disabled = true;
      });
      window.setTimeout(function () {
        Array.prototype.forEach.call(queryForm.elements, function (el) {
          el.disabled = false;
        });
      }, 0);
    });
  }

  // OPTIONS: the collection's metadata (its OpenAPI document), shown below the button.
  var optionsButton = document.getElementById('options-button');
  if (optionsButton) {
    optionsButton.addEventListener('click', function () {
      var out = document.getElementById('options-output');
      fetch(optionsButton.getAttribute('data-url'), {
        method: 'OPTIONS',
        headers: { Accept: 'application/json' },
      })
        .then(function (res) {
          return res.text().then(function (text) {
            var shown =
              'OPTIONS → ' + res.status + '\nAllow: ' + (res.headers.get('Allow') || '') + '\n\n';
            try {
              shown += JSON.stringify(JSON.parse(text), null, 2);
            } catch {
              shown += text;
            }
            out.textContent = shown;
            out.hidden = false;
            out.focus();
          });
        })
        .catch(function (error) {
          out.textContent = 'OPTIONS failed: ' + error.message;
          out.hidden = false;
        });
    });
  }

  /** A record form's values, typed; on an edit form only the fields the person changed. */
  function recordBody(form) {
    var body = {};
    var edit = form.getAttribute('data-method') !== 'POST';
    Array.prototype.forEach.call(form.querySelectorAll('[data-type]'), function (el) {
      var type = el.getAttribute('data-type');
      var nullBox = form.querySelector('[data-null-for="' + el.id + '"]');
      var value;
      var shown;
      if (nullBox && nullBox.checked) {
        value = null;
        shown = '';
      } else if (type === 'boolean') {
        value = el.checked;
        shown = String(el.checked);
      } else {
        shown = el.value;
        if (el.value.trim() === '' && !edit) return;
        if (type === 'integer' && /^\s*-?\d+\s*$/.test(el.value)) value = Number(el.value);
        else if (type === 'ids')
          value = el.value
            .split(',')
            .map(function (s) {
              return s.trim();
            })
            .filter(Boolean)
            .map(function (s) {
              return /^\d+$/.test(s) ? Number(s) : s;
            });
        else value = el.value;
      }
      var initial = el.getAttribute('data-initial');
      var wasNull = nullBox && nullBox.defaultChecked;
      if (edit && shown === initial && !!(nullBox && nullBox.checked) === !!wasNull) return;
      body[el.name] = value;
    });
    return body;
  }

  function clearErrors(form) {
    Array.prototype.forEach.call(form.querySelectorAll('.field-error'), function (el) {
      el.textContent = '';
    });
    Array.prototype.forEach.call(form.querySelectorAll('[aria-invalid]'), function (el) {
      el.removeAttribute('aria-invalid');
    });
    var result = form.querySelector('.form-result');
    result.textContent = '';
    result.classList.remove('bad');
  }

  /** Each field's problems beside the field; what names no field goes under the form. */
  function showErrors(form, answer) {
    var rest = [];
    var errors = answer && answer.errors;
    if (errors && typeof errors === 'object' && !Array.isArray(errors)) {
      Object.keys(errors).forEach(function (name) {
        var slot = form.querySelector('.field-error[data-field="' + name + '"]');
        var problems = [].concat(errors[name]).join(' ');
        if (slot) {
          slot.textContent = problems;
          var input = document.getElementById(slot.id.replace(/-error$/, ''));
          if (input) input.setAttribute('aria-invalid', 'true');
        } else rest.push(name + ': ' + problems);
      });
    } else if (Array.isArray(errors)) {
      // A bulk write's: one entry per item, null for an item without fault.
      errors.forEach(function (item, index) {
        if (item === null || item === undefined) return;
        var where = 'item ' + (index + 1) + ': ';
        if (typeof item !== 'object') return rest.push(where + String(item));
        Object.keys(item).forEach(function (name) {
          rest.push(where + name + ': ' + [].concat(item[name]).join(' '));
        });
      });
      if (form.elements.body) form.elements.body.setAttribute('aria-invalid', 'true');
    } else if (errors) {
      rest.push(JSON.stringify(errors, null, 2));
    }
    return rest;
  }

  // Idempotency-Key: a fresh UUID per submission, the same one when the same submission is sent
  // again (same form, same method and body) after a failure.
  var keys = new WeakMap();
  function idempotencyKey(form, fingerprint) {
    var last = keys.get(form);
    if (last && last.fingerprint === fingerprint) return last.key;
    var key = crypto.randomUUID();
    keys.set(form, { fingerprint: fingerprint, key: key });
    return key;
  }

  function submit(form, event) {
    event.preventDefault();
    clearErrors(form);
    var result = form.querySelector('.form-result');
    var method = form.getAttribute('data-method');
    var url = form.getAttribute('data-action');
    var headers = { Accept: 'application/json' };
    var body;
    if (form.classList.contains('raw')) {
      method = form.elements.method.value;
      headers['Content-Type'] = form.elements.type.value;
      body = form.elements.body.value;
    } else if (form.querySelector('[data-type]')) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(recordBody(form));
    }
    var confirmText = form.getAttribute('data-confirm');
    if (confirmText && !window.confirm(confirmText)) return;
    var etag = form.getAttribute('data-etag');
    if (etag) headers['If-Match'] = etag;
    headers['Idempotency-Key'] = idempotencyKey(form, method + ' ' + url + '\n' + (body || ''));
    var token = stored(TOKEN_KEY);
    if (token) headers.Authorization = 'Bearer ' + token;
    var button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    result.textContent = 'Sending…';
    fetch(url, { method: method, headers: headers, body: body })
      .then(function (res) {
        return res.text().then(function (text) {
          var answer = null;
          try {
            answer = text ? JSON.parse(text) : null;
          } catch {
            answer = null;
          }
          handle(form, res, answer, text);
        });
      })
      .catch(function (error) {
        result.textContent = 'The request failed (' + error.message + '); submit again to retry.';
        result.classList.add('bad');
      })
      .then(function () {
        button.disabled = false;
      });
  }

  function handle(form, res, answer, text) {
    var result = form.querySelector('.form-result');
    var message = (answer && answer.message) || '';
    if (res.ok && form.hasAttribute('data-show')) {
      // The answer shown here, as it came (atomic operations: one result per operation).
      keys.delete(form);
      result.classList.remove('bad');
      result.textContent = res.status + ' ' + res.statusText;
      var shown = document.createElement('pre');
      shown.textContent = answer ? JSON.stringify(answer, null, 2) : text;
      result.appendChild(shown);
      return;
    }
    if (res.ok) {
      keys.delete(form);
      var location_ = res.headers.get('Location');
      if (res.status === 201 && location_) {
        store(FLASH_KEY, 'Created (' + res.status + ').');
        location.assign(pageFor(new URL(location_, location.href).pathname));
      } else if (res.status === 204) {
        store(FLASH_KEY, 'Deleted (204).');
        location.assign(form.getAttribute('data-then') || location.href);
      } else {
        store(FLASH_KEY, (message || 'Saved') + ' (' + res.status + ')');
        location.reload();
      }
      return;
    }
    result.classList.add('bad');
    var rest = showErrors(form, answer);
    result.textContent = res.status + ' ' + (message || res.statusText || text);
    if (rest.length) {
      var list = document.createElement('ul');
      rest.forEach(function (line) {
        var item = document.createElement('li');
        item.textContent = line;
        list.appendChild(item);
      });
      result.appendChild(list);
    }
    if (res.status === 401 && tokenInput) {
      result.appendChild(
        document.createTextNode('\nEnter the API token at the top of the page, then submit again.'),
      );
      var tokenBox = document.getElementById('token-box');
      if (tokenBox) tokenBox.open = true;
      tokenInput.focus();
    } else if (res.status === 412) {
      var reload = document.createElement('button');
      reload.type = 'button';
      reload.textContent = 'Reload the record';
      reload.addEventListener('click', function () {
        location.reload();
      });
      result.appendChild(document.createTextNode('\n'));
      result.appendChild(reload);
      reload.focus();
    } else {
      var invalid = form.querySelector('[aria-invalid="true"]');
      if (invalid) invalid.focus();
    }
  }

  Array.prototype.forEach.call(document.querySelectorAll('form.write'), function (form) {
    form.addEventListener('submit', function (event) {
      submit(form, event);
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll('[data-null-for]'), function (box) {
    var input = document.getElementById(box.getAttribute('data-null-for'));
    function sync() {
      input.disabled = box.checked;
    }
    box.addEventListener('change', sync);
    sync();
  });
})();
