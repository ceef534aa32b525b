/**
 * The browsable API: a browser's GET or HEAD gets the HTML page of the same answer (same status),
 * errors too; the pages carry the strict Content-Security-Policy and no inline code; values from
 * records and the request are shown only as text; JSON and XML answers stay exactly as they were;
 * BROWSABLE_API=false gives a browser JSON. HTML is not part of the OpenAPI document, so these
 * requests go through plain supertest rather than the document-checking client.
 */
import { createHash } from 'node:crypto';
import request from 'supertest';
import { useApp } from '../support/harness';
import { marbleRow, movieLinks, movieRow, userRows } from '../support/fixtures';
import { JSON_TYPE, XML_TYPE } from '../support/http';
import {
  BROWSER,
  escape,
  expectNoInlineCode,
  expectPage,
  links,
  squash,
  tags,
  titleOf,
} from './browsable-html';

const HOSTILE_NAME = '<script>alert("name")</script>';
const HOSTILE_DESCRIPTION = `"><img src=x onerror=alert(1)>' onmouseover='alert(2)`;
const HOSTILE_LOGIN = '</td><svg onload=alert(3)>';

const SEED = {
  users: userRows('ann', HOSTILE_LOGIN),
  emails: [{ id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 }],
  phone_numbers: [{ id: 1, number: '555 0100', user_id: 1 }],
  marbles: [
    marbleRow(1, 'Amber Swirl', { user_id: 1, price: '9.20' }),
    marbleRow(2, HOSTILE_NAME, { user_id: 2, description: HOSTILE_DESCRIPTION, price: null }),
    ...[3, 4, 5, 6, 7].map((id) => marbleRow(id, `Marble ${id}`, { radius_mm: id })),
  ],
  genres: [{ id: 1, name: 'Action' }],
  movies: [movieRow(1, 'Midnight Harbor', { price: '12.00', main_genre_id: 1 })],
  genres_movies: movieLinks('genre_id', [1, 1]),
  movies_users: movieLinks('user_id', [1, 1]),
};

/** Every GET route, with the title its page carries (the route's OpenAPI summary). */
const GET_ROUTES: [string, string][] = [
  ['/api/demo/emails', 'List emails'],
  ['/api/demo/emails/1', 'Show an email'],
  ['/api/demo/emails/ping', 'Answers &quot;pong&quot;'],
  ['/api/demo/emails/child_ping', 'Answers &quot;child pong&quot;'],
  ['/api/demo/phone_numbers', 'List phone numbers'],
  ['/api/demo/phone_numbers/1', 'Show a phone number'],
  ['/api/demo/phone_numbers/ping', 'Answers &quot;pong&quot;'],
  ['/api/demo/phone_numbers/child_ping', 'Answers &quot;child pong&quot;'],
  ['/api/demo/marbles', 'List marbles'],
  ['/api/demo/marbles/1', 'Show a marble'],
  ['/api/plain/movies', 'List movies'],
  ['/api/plain/movies/1', 'Show a movie'],
];

describe('browsable API (HTML pages)', () => {
  const t = useApp({ seed: SEED });
  const http = () => request(t.app.getHttpServer());

  describe('every GET route as a page', () => {
    it.each(GET_ROUTES)(
      'should answer a browser on %s with the page titled "%s", safe headers and no inline code',
      async (route, title) => {
        const res = await http().get(route).set('Accept', BROWSER);
        expectPage(res);
        expect(res.text.startsWith('<!doctype html>')).toBe(true);
        expect(titleOf(res.text)).toBe(title);
        expectNoInlineCode(res.text);
        // The JSON answer, pretty-printed and escaped, is on the page.
        const json = await http().get(`${route}.json`);
        const pretty = JSON.stringify(JSON.parse(json.text), null, 2);
        expect(res.text).toContain(escape(pretty));
      },
    );

    it.each(GET_ROUTES)(
      'should answer %s.html and ?format=html with the page too',
      async (route) => {
        const suffixed = await http().get(`${route}.html`);
        expectPage(suffixed);
        expect(squash(suffixed.text)).toContain(
          `<code class="request-line">GET ${route}.html</code>`,
        );
        const query = await http().get(`${route}?format=html`).set('Accept', 'application/xml');
        expectPage(query);
        expect(squash(query.text)).toContain(
          `<code class="request-line">GET ${route}?format=html</code>`,
        );
      },
    );

    it('should show the front door to a browser as a page of links to follow', async () => {
      const res = await http().get('/').set('Accept', BROWSER);
      expectPage(res);
      const page = squash(res.text);
      const origin = `http://${new URL(res.request.url).host}`;
      expect(page).toContain(
        '<title>Links to the collections, the change feed, the documentation and the health routes (/) · Record collections</title>',
      );
      for (const path of [
        '/api/demo/marbles/',
        '/api/plain/movies/',
        '/api/events',
        '/api/docs/',
        '/health/ready',
      ]) {
        // The address as its text, a break opportunity after each slash (but the scheme's).
        expect(page.replace(/<wbr \/>/g, '')).toContain(
          `<a href="${origin}${path}">${origin}${path}</a>`,
        );
      }
      expect(page).toContain(
        `<a href="${origin}/health/live">http://<wbr />${origin.slice(7)}/<wbr />health/<wbr />live</a>`,
      );
      expect(page).toContain('href="/?format=json">JSON</a>');
    });

    it('should keep asking for HTML the way the page was asked in its links', async () => {
      const suffixed = squash((await http().get('/api/demo/marbles/1.html')).text);
      expect(suffixed).toContain('href="/api/demo/marbles.html"');
      const query = squash((await http().get('/api/demo/marbles/1?format=html')).text);
      expect(query).toContain('href="/api/demo/marbles?format=html"');
      const accepted = squash(
        (await http().get('/api/demo/marbles/1').set('Accept', BROWSER)).text,
      );
      expect(accepted).toContain('href="/api/demo/marbles"');
    });

    it('should answer HEAD like GET, without a body', async () => {
      const res = await http().head('/api/demo/marbles/1').set('Accept', BROWSER);
      expectPage(res);
      expect(res.text ?? '').toBe('');
    });

    it('should show the ETag of a record and the Allow of its path', async () => {
      const json = await http().get('/api/demo/marbles/1');
      const page = await http().get('/api/demo/marbles/1').set('Accept', BROWSER);
      expect(squash(page.text)).toContain(
        `<dt>ETag</dt><dd><code>${escape(json.headers.etag)}</code></dd>`,
      );
      expect(squash(page.text)).toContain(
        '<dt>Allow</dt><dd><code>GET, HEAD, PUT, PATCH, DELETE, OPTIONS</code></dd>',
      );
      // The edit and delete forms carry the same ETag, for If-Match.
      expect(page.text.match(/data-etag="([^"]*)"/g)).toEqual(
        Array(4).fill(`data-etag="${escape(json.headers.etag)}"`),
      );
    });

    it('should link each record of a list to its page, and to the JSON, XML, CSV and docs pages', async () => {
      const res = await http().get('/api/demo/marbles?only=id,name').set('Accept', BROWSER);
      const found = links(res.text);
      for (let id = 1; id <= 7; id++)
        expect(found).toContainEqual([`${id}`, `/api/demo/marbles/${id}`]);
      expect(found).toContainEqual(['JSON', '/api/demo/marbles.json?only=id,name']);
      expect(found).toContainEqual(['XML', '/api/demo/marbles.xml?only=id,name']);
      expect(found).toContainEqual(['CSV', '/api/demo/marbles.csv?only=id,name']);
      expect(found).toContainEqual(['API documentation', '/api/docs/']);
      // The front door has no CSV; neither has an error.
      const door = await http().get('/api').set('Accept', BROWSER);
      const missing = await http().get('/api/demo/marbles/99').set('Accept', BROWSER);
      for (const page of [door, missing])
        expect(links(page.text).filter(([label]) => label === 'CSV')).toEqual([]);
      // Only the selected columns, each header ordering the list by its column.
      expect(squash(res.text)).toContain(
        '<tr><th scope="col" aria-sort="ascending">' +
          '<a href="/api/demo/marbles?only=id,name&amp;ordering=-id">id</a></th>' +
          '<th scope="col"><a href="/api/demo/marbles?only=id,name&amp;ordering=name">name</a></th></tr>',
      );
    });

    it('should keep filters, ordering, search and only across pages', async () => {
      const query =
        'radius_mm__gte=3&ordering=-radius_mm&search=marble&only=id,radius_mm&page_size=2';
      const res = await http().get(`/api/demo/marbles?${query}`).set('Accept', BROWSER);
      expectPage(res);
      const pages = links(res.text).filter(([, href]) => href.includes('page='));
      expect(pages).toEqual([
        ['1', `/api/demo/marbles?${query}&page=1`],
        ['2', `/api/demo/marbles?${query}&page=2`],
        ['3', `/api/demo/marbles?${query}&page=3`],
        ['Next', `/api/demo/marbles?${query}&page=2`],
        ['Last', `/api/demo/marbles?${query}&page=3`],
      ]);
      // The form shows what was asked.
      const inputs = Object.fromEntries(
        tags(res.text)
          .filter((tag) => tag.name === 'input' && /^[fq]-/.test(tag.attrs.id ?? ''))
          .map((tag) => [tag.attrs.name, tag.attrs.value]),
      );
      expect(inputs).toMatchObject({
        radius_mm__gte: '3',
        search: 'marble',
        only: 'id,radius_mm',
        page_size: '2',
        radius_mm: '',
      });
      const selected = tags(res.text).filter(
        (tag) => tag.name === 'option' && 'selected' in tag.attrs,
      );
      expect(selected.map((tag) => tag.attrs.value)).toEqual(['-radius_mm']);
    });
  });

  describe('what the pages hold', () => {
    it("should show a probe's message", async () => {
      const res = await http().get('/api/demo/emails/ping').set('Accept', BROWSER);
      expect(squash(res.text)).toContain('<p class="message">pong</p>');
    });

    it('should type the write forms from the declaration, with no dropdown of related rows', async () => {
      const res = await http().get('/api/demo/marbles/1').set('Accept', BROWSER);
      const edit = tags(res.text)
        .filter((tag) => /^edit-/.test(tag.attrs.id ?? '') && 'data-type' in tag.attrs)
        .map((tag) => [tag.name, tag.attrs.name, tag.attrs.type ?? '', tag.attrs['data-initial']]);
      expect(edit).toEqual([
        ['input', 'name', 'text', 'Amber Swirl'],
        ['input', 'radius_mm', 'number', '10'],
        ['input', 'price', 'text', '9.2'],
        ['input', 'is_discounted', 'checkbox', 'false'],
        ['input', 'user_id', 'number', '1'],
        ['textarea', 'description', '', ''],
      ]);
      // Explicit null for the nullable fields.
      expect(
        tags(res.text)
          .filter((tag) => tag.attrs['data-null-for'])
          .map((tag) => tag.attrs['data-null-for']),
      ).toEqual(['edit-price', 'edit-user_id']);
      expect(tags(res.text).filter((tag) => tag.name === 'select')).toEqual([]);
      // The actions, from the routes: adjust_price takes a price, the toggle is a button.
      expect(
        tags(res.text)
          .filter((tag) => tag.name === 'form')
          .map((tag) => tag.attrs.id),
      ).toEqual([
        'token-form',
        'edit-form',
        'action-adjust_price',
        'action-toggle_is_discounted',
        'delete-form',
      ]);
      const movie = await http().get('/api/plain/movies/1').set('Accept', BROWSER);
      const ids = tags(movie.text).filter((tag) =>
        /^edit-(genre|user)_ids$/.test(tag.attrs.id ?? ''),
      );
      expect(
        ids.map((tag) => [tag.attrs.name, tag.attrs['data-type'], tag.attrs['data-initial']]),
      ).toEqual([
        ['genre_ids', 'ids', '1'],
        ['user_ids', 'ids', '1'],
      ]);
    });
  });

  describe('values shown only as text', () => {
    it('should escape a hostile record on its page and in lists', async () => {
      for (const path of ['/api/demo/marbles/2', '/api/demo/marbles']) {
        const res = await http().get(path).set('Accept', BROWSER);
        expectPage(res);
        expectNoInlineCode(res.text);
        for (const hostile of [HOSTILE_NAME, HOSTILE_DESCRIPTION, HOSTILE_LOGIN]) {
          expect(res.text).not.toContain(hostile);
          if (path.endsWith('/2') || hostile !== HOSTILE_DESCRIPTION)
            expect(res.text).toContain(escape(hostile));
        }
      }
    });

    it('should escape what the request carries: its query and path', async () => {
      const res = await http()
        .get('/api/demo/marbles?search=%22%3E%3Cscript%3Ealert(1)%3C/script%3E')
        .set('Accept', BROWSER);
      expectPage(res);
      expectNoInlineCode(res.text);
      expect(tags(res.text).find((tag) => tag.attrs.name === 'search')?.attrs.value).toBe(
        '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;',
      );
      const missing = await http()
        .get('/api/demo/%3Csvg%20onload=alert(1)%3E')
        .set('Accept', BROWSER);
      expectPage(missing, 404);
      expectNoInlineCode(missing.text);
    });
  });

  describe('error pages', () => {
    it('should answer a missing record with the 404 page', async () => {
      const res = await http().get('/api/demo/marbles/99').set('Accept', BROWSER);
      expectPage(res, 404);
      expect(titleOf(res.text)).toBe('404 Not Found');
      expect(squash(res.text)).toContain('<p class="error-message">Marble 99 not found.</p>');
      expectNoInlineCode(res.text);
    });

    it('should answer a route that does not exist with the 404 page', async () => {
      const res = await http().get('/api/demo/nothing').set('Accept', BROWSER);
      expectPage(res, 404);
      expect(squash(res.text)).toContain('<p class="error-message">Not found.</p>');
    });

    it('should answer a bad filter with the 400 page naming the field', async () => {
      const res = await http().get('/api/demo/marbles?radius_mm=abc').set('Accept', BROWSER);
      expectPage(res, 400);
      expect(squash(res.text)).toContain(
        '<p class="error-message">Invalid query parameters.</p><dl class="field-errors">' +
          '<dt><code>radius_mm</code></dt><dd>&quot;abc&quot; is not a valid integer.</dd></dl>',
      );
    });

    it('should answer an explicit unsupported format with the 406 page for a browser, JSON otherwise', async () => {
      const page = await http().get('/api/demo/marbles.tsv').set('Accept', BROWSER);
      expectPage(page, 406);
      expect(squash(page.text)).toContain(
        '<p class="error-message">Format &quot;tsv&quot; is not available; use json, xml or csv.</p>',
      );
      const json = await http().get('/api/demo/marbles.tsv');
      expect(json.status).toBe(406);
      expect(json.headers['content-type']).toBe(JSON_TYPE);
      expect(json.text).toBe(
        '{"message":"Format \\"tsv\\" is not available; use json, xml or csv."}',
      );
    });
  });

  describe('JSON and XML unchanged', () => {
    it.each(GET_ROUTES.map(([route]) => route))(
      'should answer %s in JSON for */*, no Accept and application/json, text/html',
      async (route) => {
        const expected = (await http().get(`${route}.json`)).text;
        for (const accept of [
          '*/*',
          'application/json, text/html',
          'text/html;q=0.5, application/json',
        ]) {
          const res = await http().get(route).set('Accept', accept);
          expect([res.headers['content-type'], res.text]).toEqual([JSON_TYPE, expected]);
        }
        const none = await http().get(route).unset('Accept');
        expect([none.headers['content-type'], none.text]).toEqual([JSON_TYPE, expected]);
        const xml = await http().get(`${route}?format=xml`).set('Accept', BROWSER);
        expect(xml.headers['content-type']).toBe(XML_TYPE);
        expect(xml.text).toBe((await http().get(`${route}.xml`)).text);
      },
    );

    it('should answer a write from a browser in JSON, never XML', async () => {
      const res = await http()
        .post('/api/demo/marbles')
        .set('Accept', BROWSER)
        .send({ name: 'Browser Marble' });
      expect([res.status, res.headers['content-type']]).toEqual([201, JSON_TYPE]);
      expect(res.body.name).toBe('Browser Marble');
      await http().delete(`/api/demo/marbles/${res.body.id}`).expect(204);
    });

    it('should refuse .html on a write with 406', async () => {
      const res = await http().post('/api/demo/marbles.html').send({ name: 'x' });
      expect([res.status, res.headers['content-type']]).toEqual([406, JSON_TYPE]);
    });
  });

  describe('static files', () => {
    it('should serve the script, stylesheet and icon under their content hashes, cached for a year', async () => {
      const page = (await http().get('/api/demo/marbles/1').set('Accept', BROWSER)).text;
      const urls = [
        /<script src="([^"]+)"/.exec(page)![1],
        /<link rel="stylesheet" href="([^"]+)"/.exec(page)![1],
        /<link rel="icon" href="([^"]+)"/.exec(page)![1],
      ];
      const types = ['text/javascript; charset=utf-8', 'text/css; charset=utf-8', 'image/svg+xml'];
      for (const [i, url] of urls.entries()) {
        const res = await http()
          .get(url)
          .buffer(true)
          .parse((r, done) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('end', () => done(null, Buffer.concat(chunks)));
          });
        expect([res.status, res.headers['content-type'], res.headers['cache-control']]).toEqual([
          200,
          types[i],
          'public, max-age=31536000, immutable',
        ]);
        const hash = createHash('sha256')
          .update(res.body as Buffer)
          .digest('hex')
          .slice(0, 12);
        expect(url).toMatch(new RegExp(`^/assets/[a-z]+\\.${hash}\\.(js|css|svg)$`));
      }
      const stale = await http().get('/assets/browsable.000000000000.js');
      expect(stale.status).toBe(404);
    });
  });
});

describe('browsable API without a total count', () => {
  const t = useApp({ pageTotalCount: false, seed: SEED });

  it('should link to the previous and next pages only', async () => {
    const res = await request(t.app.getHttpServer())
      .get('/api/demo/marbles?page_size=2&page=2')
      .set('Accept', BROWSER);
    expectPage(res);
    const pages = links(res.text).filter(
      ([label, href]) => href.includes('page=') && !/^(JSON|XML|CSV)$/.test(label),
    );
    expect(pages).toEqual([
      ['Previous', '/api/demo/marbles?page_size=2&page=1'],
      ['Next', '/api/demo/marbles?page_size=2&page=3'],
    ]);
    expect(squash(res.text)).toContain('<p class="muted">Page 2.</p>');
  });
});

describe('browsable API switched off (BROWSABLE_API=false)', () => {
  const t = useApp({ browsableApi: false, seed: SEED });
  const http = () => request(t.app.getHttpServer());

  it('should answer a browser with JSON, not XML', async () => {
    const res = await http().get('/api/demo/marbles/1').set('Accept', BROWSER);
    expect([res.status, res.headers['content-type']]).toEqual([200, JSON_TYPE]);
    expect(res.text).toBe((await http().get('/api/demo/marbles/1.json')).text);
    const missing = await http().get('/api/demo/marbles/99').set('Accept', BROWSER);
    expect([missing.status, missing.headers['content-type'], missing.text]).toEqual([
      404,
      JSON_TYPE,
      '{"message":"Marble 99 not found."}',
    ]);
  });

  it('should refuse .html and format=html with 406, and serve no static files', async () => {
    for (const path of ['/api/demo/marbles.html', '/api/demo/marbles?format=html']) {
      const res = await http().get(path);
      expect([res.status, res.headers['content-type'], res.text]).toEqual([
        406,
        JSON_TYPE,
        '{"message":"Format \\"html\\" is not available; use json, xml or csv."}',
      ]);
    }
    const page = await request(t.app.getHttpServer()).get('/assets/favicon.svg');
    expect(page.status).toBe(404);
  });
});
