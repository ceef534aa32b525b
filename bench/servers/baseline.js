#!/usr/bin/env node
/**
 * Hand-written baseline for `npm run bench`: plain `node:http` + `mysql2`, no framework, no ORM.
 *
 * It does the same job as the service for the benchmarked routes and answers them with
 * byte-identical bodies (the same encodings, records and list rules), so that the benchmark measures what the service's
 * layers cost, not a different amount of work:
 *
 *   GET /api/demo/marbles[.json|.xml][?page=N&page_size=M&ordering=-price&search=text]
 *                                     enveloped page; COUNT(*) and the page run concurrently on
 *                                     two pool connections
 *   GET /api/demo/emails[...]         same, with user and billing_user
 *   GET /api/demo/marbles/:id[.json|.xml]   one record
 *   GET /api/plain/movies[.json]      bare array, users in one extra query
 *   POST /api/demo/marbles            one marble (an object) or many (an array: one multi-row
 *                                     INSERT); 201, Location, ETag
 *   PATCH /api/demo/marbles/:id       the fields sent; ETag
 *   PATCH /api/demo/marbles/:id/adjust_price   the price; ETag
 *   DELETE /api/demo/marbles/:id      204
 *
 * Each write is one transaction on one pooled connection (START TRANSACTION, the write, the
 * record read back, COMMIT), answered with the service's exact body; If-Match (`"<id>.<version>"`
 * or `*`) guards PATCH and DELETE by the version in the statement. A duplicate name and a missing
 * user are refused by the database and answered with the service's 400.
 *
 * It is what a competent engineer would write by hand: parameterised SQL through a pool
 * configured like the service's, rows mapped to plain objects and `JSON.stringify`, XML built
 * as a string, nothing per row beyond formatting. Pages past the first use a deferred join: the
 * subquery pages over the primary key (or the ordering columns) alone, and only the kept rows are
 * joined and read in full, so a deep OFFSET never drags whole rows through the sort or the skip.
 *
 * `ordering` (root-table columns, `-` for descending, `id` as the final tie-breaker) and `search`
 * (LOWER(column) LIKE '%text%' over the searchable columns) follow the listing rules with the service's
 * SQL, so that the results are the same rows. Filters, ordering by a related field (501), Accept
 * negotiation, Idempotency-Key and writes of other collections are not implemented (they are not
 * benchmarked against it); other routes are 404.
 *
 * Environment: DATABASE_URL (mysql://user:pass@host:3306/db), PORT, HOST (default 127.0.0.1),
 * PAGE_TOTAL_COUNT=false: no COUNT, `count` and `total_pages` omitted, `next` decided by fetching
 * one row past the page (without a total count, `next` is known by reading one row more).
 */
'use strict';

const http = require('node:http');
const mysql = require('mysql2/promise');

const DATABASE_URL = process.env.DATABASE_URL;
const PORT = Number(process.env.PORT || 3101);
const HOST = process.env.HOST || '127.0.0.1';
if (!DATABASE_URL || !/^(mysql|mariadb):\/\//.test(DATABASE_URL)) {
  console.error('baseline: DATABASE_URL must be mysql://user:pass@host:3306/database');
  process.exit(1);
}

// Same pool options as the service (src/database/data-source-options.ts).
const pool = mysql.createPool({
  uri: DATABASE_URL.replace(/^mariadb:/, 'mysql:'),
  charset: 'utf8mb4',
  timezone: 'Z',
  dateStrings: true,
  supportBigNumbers: true,
  bigNumberStrings: true,
  connectionLimit: 10,
});

const PAGE_TOTAL_COUNT = !/^(false|0|no|off)$/i.test(process.env.PAGE_TOTAL_COUNT || '');
const PAGE_SIZE = 30;
const MAX_PAGE_SIZE = 40;
const JSON_TYPE = 'application/json; charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

// ---------------------------------------------------------------------------------------------
// Values: canonical decimal strings, UTC timestamps with milliseconds

/** `8.00` → `8.0`, `9.230` → `9.23`, `4000` → `4000.0`; on the digits, never through a float. */
function decimal(value) {
  if (value === null) return null;
  let text = String(value);
  let sign = '';
  if (text[0] === '-') {
    sign = '-';
    text = text.slice(1);
  }
  const point = text.indexOf('.');
  const whole = (point === -1 ? text : text.slice(0, point)).replace(/^0+(?=\d)/, '') || '0';
  const fraction = (point === -1 ? '' : text.slice(point + 1)).replace(/0+$/, '') || '0';
  if (whole === '0' && fraction === '0') sign = '';
  return `${sign}${whole}.${fraction}`;
}

/** `2024-05-01 12:00:00.123` (DATETIME(3) as text, UTC) → `2024-05-01T12:00:00.123Z`. */
function timestamp(value) {
  if (value === null) return null;
  const fraction = value.length > 20 ? value.slice(20, 23).padEnd(3, '0') : '000';
  return `${value.slice(0, 10)}T${value.slice(11, 19)}.${fraction}Z`;
}

/** XML dateTime: no fraction. */
function xmlTimestamp(value) {
  return `${value.slice(0, 10)}T${value.slice(11, 19)}Z`;
}

// eslint-disable-next-line no-control-regex -- the characters XML 1.0 cannot carry
const XML_SPECIAL = /[&<>\r\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
// eslint-disable-next-line no-control-regex
const XML_SPECIAL_ALL = /[&<>\r\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/g;

/** Escapes markup; characters XML 1.0 cannot carry (controls, lone surrogates) become U+FFFD. */
function escapeXml(text) {
  const clean = text.isWellFormed() ? text : text.toWellFormed();
  if (!XML_SPECIAL.test(clean)) return clean;
  return clean.replace(XML_SPECIAL_ALL, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '\r' ? '&#13;' : '\uFFFD',
  );
}

const xInt = (tag, v) =>
  v === null ? `<${tag} nil="true"/>` : `<${tag} type="integer">${v}</${tag}>`;
const xStr = (tag, v) => (v === null ? `<${tag} nil="true"/>` : `<${tag}>${escapeXml(v)}</${tag}>`);
const xBool = (tag, v) =>
  v === null ? `<${tag} nil="true"/>` : `<${tag} type="boolean">${v === 1}</${tag}>`;
const xDec = (tag, v) =>
  v === null ? `<${tag} nil="true"/>` : `<${tag} type="decimal">${decimal(v)}</${tag}>`;
const xTime = (tag, v) =>
  v === null ? `<${tag} nil="true"/>` : `<${tag} type="dateTime">${xmlTimestamp(v)}</${tag}>`;
const xUser = (tag, id, login) =>
  id === null ? '' : `<${tag}>${xInt('id', id)}${xStr('login', login)}</${tag}>`;

const bool = (v) => (v === null ? null : v === 1);

// ---------------------------------------------------------------------------------------------
// Collections: SQL and row mappers

const MARBLE_COLUMNS =
  't.id, t.name, t.radius_mm, t.price, t.is_discounted, t.created_at, t.updated_at,' +
  ' u.id AS user_id, u.login AS user_login, t.description, t.picture';
const MARBLE_JOINS = ' LEFT JOIN users u ON u.id = t.user_id';

function marbleJson(r) {
  const m = {
    id: r.id,
    name: r.name,
    radius_mm: r.radius_mm,
    price: decimal(r.price),
    is_discounted: bool(r.is_discounted),
    created_at: timestamp(r.created_at),
    updated_at: timestamp(r.updated_at),
  };
  if (r.user_id !== null) m.user = { id: r.user_id, login: r.user_login };
  m.description = r.description;
  m.picture = r.picture;
  return m;
}

function marbleXml(r, tag) {
  return (
    `<${tag}>` +
    xInt('id', r.id) +
    xStr('name', r.name) +
    xInt('radius-mm', r.radius_mm) +
    xDec('price', r.price) +
    xBool('is-discounted', r.is_discounted) +
    xTime('created-at', r.created_at) +
    xTime('updated-at', r.updated_at) +
    xUser('user', r.user_id, r.user_login) +
    xStr('description', r.description) +
    xStr('picture', r.picture) +
    `</${tag}>`
  );
}

const EMAIL_COLUMNS =
  't.id, t.email, t.is_primary, u.id AS user_id, u.login AS user_login,' +
  ' b.id AS billing_id, b.login AS billing_login';
const EMAIL_JOINS = ' LEFT JOIN users u ON u.id = t.user_id LEFT JOIN users b ON b.email_id = t.id';

function emailJson(r) {
  const e = { id: r.id, email: r.email, is_primary: bool(r.is_primary) };
  if (r.user_id !== null) e.user = { id: r.user_id, login: r.user_login };
  if (r.billing_id !== null) e.billing_user = { id: r.billing_id, login: r.billing_login };
  return e;
}

function emailXml(r, tag) {
  return (
    `<${tag}>` +
    xInt('id', r.id) +
    xStr('email', r.email) +
    xBool('is-primary', r.is_primary) +
    xUser('user', r.user_id, r.user_login) +
    xUser('billing-user', r.billing_id, r.billing_login) +
    `</${tag}>`
  );
}

/**
 * `orderable`: root-table columns a client may order by (`unique`: those whose values never repeat,
 * which need no tie-breaker); `related`: paths on joined tables, which the service accepts and
 * this baseline does not implement; `searchable`: columns `search` covers.
 */
const COLLECTIONS = {
  marbles: collection({
    label: 'Marble',
    table: 'marbles',
    columns: MARBLE_COLUMNS,
    joins: MARBLE_JOINS,
    orderable:
      'id name radius_mm price is_discounted created_at updated_at user_id description picture'.split(
        ' ',
      ),
    unique: ['id', 'name'],
    related: ['user.id', 'user.login'],
    searchable: ['name', 'description'],
    json: marbleJson,
    xml: marbleXml,
  }),
  emails: collection({
    label: 'Email',
    table: 'emails',
    columns: EMAIL_COLUMNS,
    joins: EMAIL_JOINS,
    orderable: ['id', 'email', 'is_primary', 'user_id'],
    unique: ['id', 'email'],
    related: ['user.id', 'user.login', 'billing_user.id', 'billing_user.login'],
    searchable: ['email'],
    json: emailJson,
    xml: emailXml,
  }),
};

function collection(c) {
  return {
    ...c,
    orderable: new Set(c.orderable),
    unique: new Set(c.unique),
    related: new Set(c.related),
    /** Everything but WHERE, ORDER BY and LIMIT, compiled once. */
    select: `SELECT ${c.columns} FROM ${c.table} t${c.joins}`,
    count: `SELECT COUNT(*) AS n FROM ${c.table} t`,
    deferredHead: `SELECT ${c.columns} FROM (SELECT t.id FROM ${c.table} t`,
    deferredJoin: `) k JOIN ${c.table} t ON t.id = k.id${c.joins}`,
    search: `(${c.searchable.map((name) => `LOWER(t.${name}) LIKE ? ESCAPE '!'`).join(' OR ')})`,
  };
}

const MOVIE_SELECT =
  'SELECT t.id, t.created_at, t.name, t.price, t.updated_at, g.id AS genre_id, g.name AS genre_name' +
  ' FROM movies t LEFT JOIN genres g ON g.id = t.main_genre_id ORDER BY t.id';

// ---------------------------------------------------------------------------------------------
// Handlers

const DIGITS = /^\d+$/;
const ID = /^[1-9]\d{0,9}$/;
/** Page numbers and sizes beyond this are taken as this, as the service does. */
const LARGEST = 1e12;

class NotImplemented extends Error {}

/** Last value of a query parameter, like the service's `simple` query parser. */
function param(params, name) {
  const all = params.getAll(name);
  return all.length ? all[all.length - 1] : undefined;
}

/** `next`/`previous`: the request's URL with every parameter kept, in order, and the page changed. */
function pageUrl(base, query, page) {
  const parts = query === '' ? [] : query.split('&');
  let found = false;
  for (let i = 0; i < parts.length; i++) {
    const eq = parts[i].indexOf('=');
    let name = eq === -1 ? parts[i] : parts[i].slice(0, eq);
    try {
      name = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // Undecodable name: compared as sent.
    }
    if (name !== 'page') continue;
    if (found) {
      parts.splice(i--, 1);
    } else {
      parts[i] = `page=${page}`;
      found = true;
    }
  }
  if (!found) parts.push(`page=${page}`);
  return `${base}?${parts.join('&')}`;
}

/**
 * ` ORDER BY …, t.id …` from `?ordering=-price,name` (unknown names ignored, as the service): id
 * breaks ties in the direction of the last term, unless a term is unique.
 */
function orderBy(collection, raw) {
  const terms = [];
  const seen = new Set();
  if (raw !== undefined) {
    for (const part of raw.split(',')) {
      const name = part.trim();
      const descending = name.startsWith('-');
      const path = descending ? name.slice(1) : name;
      if (collection.related.has(path)) {
        throw new NotImplemented(`the baseline does not order by ${path}`);
      }
      if (!collection.orderable.has(path) || seen.has(path)) continue;
      seen.add(path);
      terms.push(`t.${path} ${descending ? 'DESC' : 'ASC'}`);
    }
  }
  if (![...seen].some((path) => collection.unique.has(path))) {
    terms.push(`t.id ${terms.at(-1)?.endsWith(' DESC') ? 'DESC' : 'ASC'}`);
  }
  return ` ORDER BY ${terms.join(', ')}`;
}

/** `%text%`, lower-cased, with `%`, `_` and the escape character `!` taken literally. */
function likePattern(text) {
  return `%${text.toLowerCase().replace(/[!%_]/g, '!$&')}%`;
}

async function index(collection, format, req, path, query) {
  const params = new URLSearchParams(query);
  let pageSize = PAGE_SIZE;
  const rawSize = param(params, 'page_size');
  if (rawSize !== undefined && DIGITS.test(rawSize) && Number(rawSize) > 0) {
    pageSize = Math.min(Number(rawSize), MAX_PAGE_SIZE);
  }
  const rawPage = param(params, 'page');
  const page =
    rawPage !== undefined && DIGITS.test(rawPage)
      ? Math.max(Math.min(Number(rawPage), LARGEST), 1)
      : 1;
  const offset = Math.min((page - 1) * pageSize, Number.MAX_SAFE_INTEGER);

  let where = '';
  const parameters = [];
  const search = param(params, 'search');
  if (search !== undefined && search !== '') {
    where = ` WHERE ${collection.search}`;
    const pattern = likePattern(search);
    for (let i = 0; i < collection.searchable.length; i++) parameters.push(pattern);
  }
  const order = orderBy(collection, param(params, 'ordering'));
  // Without a count, one row past the page tells whether there is a next page.
  const limit = PAGE_TOTAL_COUNT ? pageSize : pageSize + 1;
  // Page 1 reads its rows directly; a later page first finds its ids over the ordering columns
  // alone (the deferred join), then reads only those rows in full.
  const pageQuery =
    offset === 0
      ? pool.query(`${collection.select}${where}${order} LIMIT ?`, [...parameters, limit])
      : pool.query(
          `${collection.deferredHead}${where}${order} LIMIT ? OFFSET ?` +
            `${collection.deferredJoin}${order}`,
          [...parameters, limit, offset],
        );
  const countQuery = PAGE_TOTAL_COUNT
    ? pool.query(collection.count + where, parameters)
    : undefined;
  let [[rows], counted] = await Promise.all([pageQuery, countQuery]);

  let count;
  let hasNext;
  if (PAGE_TOTAL_COUNT) {
    count = Number(counted[0][0].n);
    hasNext = page * pageSize < count;
  } else {
    hasNext = rows.length > pageSize;
    if (hasNext) rows = rows.slice(0, pageSize);
  }
  const base = `http://${req.headers.host}${path}`;
  const next = hasNext ? pageUrl(base, query, page + 1) : undefined;
  const previous = page > 1 ? pageUrl(base, query, page - 1) : undefined;

  if (format === 'json') {
    const envelope =
      count === undefined
        ? { page, page_size: pageSize }
        : { count, page, page_size: pageSize, total_pages: Math.ceil(count / pageSize) };
    if (next !== undefined) envelope.next = next;
    if (previous !== undefined) envelope.previous = previous;
    envelope.results = rows.map(collection.json);
    return JSON.stringify(envelope);
  }
  let xml = XML_DECLARATION + '<hash>';
  if (count !== undefined) xml += xInt('count', count);
  xml += xInt('page', page) + xInt('page-size', pageSize);
  if (count !== undefined) xml += xInt('total-pages', Math.ceil(count / pageSize));
  if (next !== undefined) xml += xStr('next', next);
  if (previous !== undefined) xml += xStr('previous', previous);
  if (rows.length === 0) {
    xml += '<results type="array"/>';
  } else {
    xml += '<results type="array">';
    for (const row of rows) xml += collection.xml(row, 'result');
    xml += '</results>';
  }
  return xml + '</hash>\n';
}

async function show(collection, format, id) {
  const [rows] = await pool.query(`${collection.select} WHERE t.id = ?`, [id]);
  if (rows.length === 0) return undefined;
  return format === 'json'
    ? JSON.stringify(collection.json(rows[0]))
    : XML_DECLARATION + collection.xml(rows[0], 'hash') + '\n';
}

async function movies() {
  const [rows] = await pool.query(MOVIE_SELECT);
  const list = [];
  const byId = new Map();
  for (const r of rows) {
    const movie = {
      id: r.id,
      created_at: timestamp(r.created_at),
      name: r.name,
      price: decimal(r.price),
      updated_at: timestamp(r.updated_at),
    };
    if (r.genre_id !== null) movie.main_genre = { id: r.genre_id, name: r.genre_name };
    movie.genres = []; // a movie's genres are empty in listings, always
    movie.users = [];
    list.push(movie);
    byId.set(r.id, movie);
  }
  if (list.length > 0) {
    const [users] = await pool.query(
      'SELECT j.movie_id, u.id, u.login FROM movies_users j JOIN users u ON u.id = j.user_id' +
        ' WHERE j.movie_id IN (?) ORDER BY j.movie_id, u.id',
      [list.map((m) => m.id)],
    );
    for (const u of users) byId.get(u.movie_id).users.push({ id: u.id, login: u.login });
  }
  return JSON.stringify(list);
}

// ---------------------------------------------------------------------------------------------
// Writes of marbles (POST, PATCH, adjust_price, DELETE, bulk POST), each in one transaction

const MARBLE_RETURNING = `SELECT ${MARBLE_COLUMNS}, t.version FROM marbles t${MARBLE_JOINS}`;
const INT_MAX = 2147483647;
const PRICE = /^\d{1,4}(\.\d{1,2})?$/;

class BadRequest extends Error {
  constructor(errors) {
    super('Validation failed; nothing was saved.');
    this.errors = errors;
  }
}

/** `2024-05-01 12:00:00.123`, the DATETIME(3) text of `date` in UTC. */
const dbTime = (date) => date.toISOString().slice(0, 23).replace('T', ' ');

/**
 * The columns a marble body sets, checked as the service checks them; `partial` for PATCH (only
 * what is given), else the defaults fill the rest.
 */
function marbleValues(body, partial) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequest({ non_field_errors: ['Request body must be a marble object.'] });
  }
  const values = partial
    ? {}
    : { radius_mm: 1, price: null, is_discounted: 0, user_id: null, description: '' };
  const errors = {};
  const has = (name) => body[name] !== undefined;
  if (has('name')) {
    const v = body.name;
    if (typeof v !== 'string') errors.name = ['Not a valid string.'];
    else if (v.trim() === '') errors.name = ['May not be blank.'];
    else if (v.length > 255) errors.name = ['Ensure this field has no more than 255 characters.'];
    else values.name = v;
  } else if (!partial) errors.name = ['This field is required.'];
  if (has('radius_mm')) {
    const v = body.radius_mm;
    if (!Number.isInteger(v) || v < 1 || v > INT_MAX)
      errors.radius_mm = ['A valid integer >= 1 is required.'];
    else values.radius_mm = v;
  }
  if (has('price')) {
    const v = body.price;
    if (v === null) values.price = null;
    else if (
      (typeof v !== 'string' && typeof v !== 'number') ||
      !PRICE.test(String(v)) ||
      Number(v) <= 0
    )
      errors.price = ['A valid number is required.'];
    else values.price = String(v);
  }
  if (has('is_discounted')) {
    if (typeof body.is_discounted !== 'boolean')
      errors.is_discounted = ['Must be a valid boolean.'];
    else values.is_discounted = body.is_discounted ? 1 : 0;
  }
  if (has('user_id')) {
    const v = body.user_id;
    if (v !== null && (!Number.isInteger(v) || v < 1 || v > INT_MAX))
      errors.user_id = ['Invalid id.'];
    else values.user_id = v;
  }
  if (has('description')) {
    if (typeof body.description !== 'string' || body.description.length > 10000)
      errors.description = ['Not a valid string.'];
    else values.description = body.description;
  }
  if (Object.keys(errors).length > 0) throw new BadRequest(errors);
  return values;
}

/** The version If-Match names: a number, `*` (any), or undefined without the header. */
function ifMatch(req, id) {
  const header = req.headers['if-match'];
  if (header === undefined) return undefined;
  if (header.trim() === '*') return '*';
  const match = /^\s*"(\d+)\.(\d+)"\s*$/.exec(header);
  return match && Number(match[1]) === id ? Number(match[2]) : -1;
}

/** `work(connection)` between START TRANSACTION and COMMIT on one pooled connection. */
async function inTransaction(work) {
  const connection = await pool.getConnection();
  try {
    await connection.query('START TRANSACTION');
    const result = await work(connection);
    await connection.query('COMMIT');
    return result;
  } catch (error) {
    await connection.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    connection.release();
  }
}

/** A duplicate name or a missing user, as the service words them; anything else rethrown. */
function constraintError(error, values) {
  if (error.code === 'ER_DUP_ENTRY') {
    return new BadRequest({ name: ['A marble with this name already exists.'] });
  }
  if (error.code === 'ER_NO_REFERENCED_ROW_2') {
    return new BadRequest({ user_id: [`No user with id ${values.user_id}.`] });
  }
  return error;
}

function recordAnswer(status, row, host) {
  const headers = { ETag: `"${row.id}.${row.version}"` };
  if (status === 201) headers.Location = `http://${host}/api/demo/marbles/${row.id}`;
  return { status, type: JSON_TYPE, body: JSON.stringify(marbleJson(row)), headers };
}

async function createMarble(req, body) {
  const values = marbleValues(body, false);
  const now = dbTime(new Date());
  const row = await inTransaction(async (c) => {
    let result;
    try {
      [result] = await c.query(
        'INSERT INTO marbles (name, radius_mm, price, is_discounted, created_at, updated_at,' +
          ' user_id, description) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [
          values.name,
          values.radius_mm,
          values.price,
          values.is_discounted,
          now,
          now,
          values.user_id,
          values.description,
        ],
      );
    } catch (error) {
      throw constraintError(error, values);
    }
    const [rows] = await c.query(`${MARBLE_RETURNING} WHERE t.id = ?`, [result.insertId]);
    return rows[0];
  });
  return recordAnswer(201, row, req.headers.host);
}

async function bulkCreateMarbles(body) {
  if (body.length === 0 || body.length > 1000) {
    throw new BadRequest({
      non_field_errors: ['Bulk create requires an array of objects as input.'],
    });
  }
  const all = body.map((item) => marbleValues(item, false));
  const now = dbTime(new Date());
  const rows = await inTransaction(async (c) => {
    let result;
    try {
      [result] = await c.query(
        'INSERT INTO marbles (name, radius_mm, price, is_discounted, created_at, updated_at,' +
          ' user_id, description) VALUES ?',
        [
          all.map((v) => [
            v.name,
            v.radius_mm,
            v.price,
            v.is_discounted,
            now,
            now,
            v.user_id,
            v.description,
          ]),
        ],
      );
    } catch (error) {
      throw constraintError(error, all[0]);
    }
    // One multi-row INSERT takes consecutive ids (innodb_autoinc_lock_mode 0 or 1).
    const [found] = await c.query(`${MARBLE_RETURNING} WHERE t.id BETWEEN ? AND ? ORDER BY t.id`, [
      result.insertId,
      result.insertId + all.length - 1,
    ]);
    return found;
  });
  return {
    status: 201,
    type: JSON_TYPE,
    body: JSON.stringify({ message: 'Bulk create successful.', records: rows.map(marbleJson) }),
  };
}

/** `UPDATE marbles SET …` of `id` (at the version If-Match names), or the 404/412 answer. */
async function updateRow(c, req, id, sets, parameters) {
  const version = ifMatch(req, id);
  const guarded = typeof version === 'number';
  const [result] = await c.query(
    `UPDATE marbles SET ${sets}, updated_at = ?, version = version + 1 WHERE id = ?` +
      (guarded ? ' AND version = ?' : ''),
    [...parameters, dbTime(new Date()), id, ...(guarded ? [version] : [])],
  );
  if (result.affectedRows === 1) return undefined;
  const [rows] = await c.query('SELECT version FROM marbles WHERE id = ?', [id]);
  return rows.length === 0
    ? notFound(`Marble ${id} not found.`)
    : json(
        412,
        JSON.stringify({
          message: `Marble ${id} has changed since the version If-Match names; nothing was changed.`,
        }),
      );
}

async function updateMarble(req, id, body) {
  const values = marbleValues(body, true);
  const names = Object.keys(values);
  if (names.length === 0) throw new BadRequest({ non_field_errors: ['Nothing to change.'] });
  return inTransaction(async (c) => {
    let failed;
    try {
      failed = await updateRow(
        c,
        req,
        id,
        names.map((n) => `${n} = ?`).join(', '),
        names.map((n) => values[n]),
      );
    } catch (error) {
      throw constraintError(error, values);
    }
    if (failed) return failed;
    const [rows] = await c.query(`${MARBLE_RETURNING} WHERE t.id = ?`, [id]);
    return recordAnswer(200, rows[0]);
  });
}

async function adjustPrice(req, id, body) {
  const price = body?.price;
  if (price === undefined || price === null) {
    throw new BadRequest({
      price: [price === null ? 'This field may not be null.' : 'This field is required.'],
    });
  }
  const values = marbleValues({ price }, true);
  return inTransaction(async (c) => {
    const failed = await updateRow(c, req, id, 'price = ?', [values.price]);
    if (failed) return failed;
    const [rows] = await c.query('SELECT version FROM marbles WHERE id = ?', [id]);
    return {
      status: 200,
      type: JSON_TYPE,
      body: JSON.stringify({ message: `Price updated to ${decimal(values.price)}.` }),
      headers: { ETag: `"${id}.${rows[0].version}"` },
    };
  });
}

async function deleteMarble(req, id) {
  const version = ifMatch(req, id);
  const guarded = typeof version === 'number';
  return inTransaction(async (c) => {
    const [result] = await c.query(
      `DELETE FROM marbles WHERE id = ?${guarded ? ' AND version = ?' : ''}`,
      guarded ? [id, version] : [id],
    );
    if (result.affectedRows === 1) return { status: 204, type: undefined, body: '' };
    const [rows] = guarded ? await c.query('SELECT id FROM marbles WHERE id = ?', [id]) : [[]];
    return rows.length === 0
      ? notFound(`Marble ${id} not found.`)
      : json(
          412,
          JSON.stringify({
            message: `Marble ${id} has changed since the version If-Match names; nothing was changed.`,
          }),
        );
  });
}

const WRITE_ROUTE = /^\/api\/demo\/marbles(?:\/([^/.]+)(\/adjust_price)?)?\/?$/;

/** A write of marbles, or undefined when the request is not one. */
function write(req, path, body) {
  const match = WRITE_ROUTE.exec(path);
  if (!match) return undefined;
  const [, rawId, action] = match;
  if (rawId === undefined) {
    if (req.method !== 'POST') return undefined;
    return Array.isArray(body) ? bulkCreateMarbles(body) : createMarble(req, body);
  }
  if (!ID.test(rawId) || Number(rawId) > INT_MAX) return notFound(`Marble ${rawId} not found.`);
  const id = Number(rawId);
  if (action) return req.method === 'PATCH' ? adjustPrice(req, id, body) : undefined;
  if (req.method === 'PATCH') return updateMarble(req, id, body);
  if (req.method === 'DELETE') return deleteMarble(req, id);
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// HTTP

function send(res, { status, type, body, headers }) {
  const head = { Vary: 'Accept', ...headers };
  if (type !== undefined) {
    head['Content-Type'] = type;
    head['Content-Length'] = Buffer.byteLength(body);
  }
  res.writeHead(status, head);
  res.end(body);
}

const json = (status, body) => ({ status, type: JSON_TYPE, body });
const notFound = (message = 'Not found.') => json(404, JSON.stringify({ message }));

const ROUTE = /^\/api\/(demo|plain)\/([a-z_]+)(?:\/([^/.]+))?\/?(?:\.(json|xml))?$/;

/**
 * The answer to a request: `{ status, type, body, headers }` (`type` undefined: no body). `body`
 * is the request's JSON body, parsed (writes).
 */
async function answer(req, body) {
  try {
    return await route(req, body);
  } catch (error) {
    if (error instanceof NotImplemented)
      return json(501, JSON.stringify({ message: error.message }));
    if (error instanceof BadRequest)
      return json(400, JSON.stringify({ message: error.message, errors: error.errors }));
    throw error;
  }
}

async function route(req, body) {
  const queryAt = req.url.indexOf('?');
  const path = queryAt === -1 ? req.url : req.url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : req.url.slice(queryAt + 1);
  if (req.method !== 'GET') return (await write(req, path, body)) ?? notFound();
  const match = ROUTE.exec(path);
  if (!match) return notFound();
  const [, prefix, name, id, suffix] = match;
  const format = suffix || 'json';
  const type = format === 'json' ? JSON_TYPE : XML_TYPE;

  if (prefix === 'plain') {
    if (name !== 'movies' || id !== undefined || format !== 'json') return notFound();
    return { status: 200, type, body: await movies() };
  }
  const collection = COLLECTIONS[name];
  if (!collection) return notFound();
  if (id === undefined) {
    return { status: 200, type, body: await index(collection, format, req, path, query) };
  }
  if (!ID.test(id) || Number(id) > 2147483647) {
    return notFound(`${collection.label} ${id} not found.`);
  }
  const record = await show(collection, format, Number(id));
  if (record === undefined) return notFound(`${collection.label} ${id} not found.`);
  return { status: 200, type, body: record };
}

/** Closes the pool (bench/servers/bare-nest.js, which answers with `answer`, calls it on shutdown). */
const closePool = () => pool.end();

module.exports = { answer, closePool };

if (require.main === module) {
  /** The request's body as JSON: undefined when empty; a 400 answer when it is not JSON. */
  const readBody = (req) =>
    new Promise((resolve, reject) => {
      if (req.method === 'GET') return resolve(undefined);
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('error', reject);
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve(text === '' ? undefined : JSON.parse(text));
        } catch {
          resolve(new BadRequest({ non_field_errors: ['Malformed JSON.'] }));
        }
      });
    });
  const server = http.createServer((req, res) => {
    readBody(req)
      .then((body) => (body instanceof BadRequest ? Promise.reject(body) : answer(req, body)))
      .catch((error) =>
        error instanceof BadRequest
          ? json(400, JSON.stringify({ message: error.message, errors: error.errors }))
          : Promise.reject(error),
      )
      .then(
        (response) => send(res, response),
        (error) => {
          console.error(`baseline: ${req.method} ${req.url}: ${error.message}`);
          if (!res.headersSent) send(res, json(500, '{"message":"Internal server error."}'));
          else res.destroy();
        },
      );
  });

  server.listen(PORT, HOST, () =>
    console.log(
      `baseline listening on http://${HOST}:${PORT}` +
        (PAGE_TOTAL_COUNT ? '' : ' (PAGE_TOTAL_COUNT=false: no count)'),
    ),
  );

  const shutdown = () => {
    server.close();
    server.closeIdleConnections();
    pool.end().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
