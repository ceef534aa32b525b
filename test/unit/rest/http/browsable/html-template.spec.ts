/**
 * The browsable API's template: whatever a string holds, it reaches the page only escaped, in
 * text, in attribute values and in links, and the page around it keeps its structure.
 */
import { fc, it } from '@fast-check/jest';
import { MARBLES } from '../../../../../src/marbles/marbles.resource';
import { PageRequest } from '../../../../../src/rest/http/browsable/html-context';
import { prettyXml } from '../../../../../src/rest/http/browsable/html-layout';
import { PageRenderRequest } from '../../../../../src/rest/http/browsable/html-renderer';
import { renderError, renderResult } from '../../../../../src/rest/http/response/renderers';
import {
  Html,
  href,
  isSafeUrl,
  join,
  markup,
  text,
} from '../../../../../src/rest/http/browsable/html-template';
import { encodeXml } from '../../../../../src/rest/core/output/xml';

/** Strings rich in the characters that matter to HTML, and any other. */
const hostile = fc.oneof(
  fc.string(),
  fc.string({
    unit: fc.constantFrom('<', '>', '"', "'", '&', '=', ' ', '/', 'a', 'on', ':', '\n'),
  }),
  fc.constantFrom(
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    "' onmouseover='alert(1)",
    'javascript:alert(1)',
    '&amp;&lt;',
    '</textarea><script>x</script>',
  ),
);

function unescape(escaped: string): string {
  return escaped
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Escaped text: no markup character, and `&` only as one of the five entities. */
const ESCAPED = /^(?:[^<>"'&]|&(?:amp|lt|gt|quot|#39);)*$/;

describe('the HTML template', () => {
  it.prop([hostile])(
    'should escape any string in text and give it back unchanged when unescaped',
    (s) => {
      const out = markup`<p>${s}</p>`.markup;
      const inner = out.slice(3, -4);
      expect(out.startsWith('<p>') && out.endsWith('</p>')).toBe(true);
      expect(inner).toMatch(ESCAPED);
      expect(unescape(inner)).toBe(s);
    },
  );

  it.prop([hostile, hostile])(
    'should keep any string inside its double-quoted attribute value',
    (a, b) => {
      const out = markup`<input value="${a}" data-x="${b}" />`.markup;
      const match = /^<input value="([^"]*)" data-x="([^"]*)" \/>$/.exec(out);
      expect(match).not.toBeNull();
      expect(match![1]).toMatch(ESCAPED);
      expect(unescape(match![1])).toBe(a);
      expect(unescape(match![2])).toBe(b);
    },
  );

  it.prop([hostile])('should make links only of relative and http(s) URLs', (s) => {
    const out = href(s).markup;
    expect(out).toMatch(ESCAPED);
    if (out === '#') return;
    const url = unescape(out);
    expect(url).toBe(s);
    expect(url).toMatch(/^(\/(?![/\\])|\?|#|https?:\/\/)/i);
    expect(/[\s\\]/.test(url)).toBe(false);
  });

  it('should refuse script, data and protocol-relative links', () => {
    for (const url of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'data:text/html,<script>',
      'vbscript:x',
      '//evil.example/',
      '/\\evil',
      'http://a b',
    ]) {
      expect([url, isSafeUrl(url), href(url).markup]).toEqual([url, false, '#']);
    }
    for (const url of ['/api/demo/marbles?page=2&x=1', '?a=1', '#main', 'https://example.com/x']) {
      expect(isSafeUrl(url)).toBe(true);
    }
  });

  it.prop([fc.array(hostile)])('should escape every item of a list and nothing twice', (items) => {
    const inner = markup`${items.map((i) => markup`<li>${i}</li>`)}`.markup;
    expect(inner).toBe(items.map((i) => `<li>${text(i).markup}</li>`).join(''));
    expect(join(items.map(text), markup`<br>`).markup).toBe(
      items.map((i) => text(i).markup).join('<br>'),
    );
  });

  it('should render nothing for false, null and undefined, and numbers as text', () => {
    expect(markup`[${false}${null}${undefined}${0}${1.5}${true}]`.markup).toBe('[01.5true]');
    expect(markup`${markup`<b>${'<i>'}</b>`}`).toBeInstanceOf(Html);
    expect(markup`${markup`<b>${'<i>'}</b>`}`.markup).toBe('<b>&lt;i&gt;</b>');
  });
});

describe('the pages', () => {
  /** A request for a marble's page, as the HTTP layer describes it. */
  const request = (status: number, query = ''): PageRenderRequest => ({
    method: 'GET',
    status,
    url: () => ({ base: 'http://localhost/api/demo/marbles/1', query }),
    pathUrl: () => 'http://localhost/api/demo/marbles/1',
    allowedMethods: () => ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    page: (): PageRequest => ({
      path: '/api/demo/marbles/1',
      query,
      asked: 'accept',
      title: 'Show a marble',
      token: false,
      assets: {
        script: '/assets/a.js',
        style: '/assets/a.css',
        icon: '/assets/a.svg',
        live: '/assets/l.js',
        feed: '/assets/f.js',
      },
      resource: MARBLES,
      actions: [
        {
          name: 'adjust_price',
          title: 'Set the price',
          fields: [{ name: 'price', type: 'decimal' }],
        },
      ],
    }),
  });

  /** Every start tag's attribute names: an injected handler or style would show up here. */
  function attributeNames(page: string): string[] {
    const names: string[] = [];
    const tag = /<[a-zA-Z][\w-]*((?:\s+[^\s=/>"']+(?:\s*=\s*"[^"]*")?)*)\s*\/?>/g;
    for (const [, attrs] of page.matchAll(tag)) {
      for (const [, name] of attrs.matchAll(/([^\s=/>"']+)(?:\s*=\s*"[^"]*")?/g)) names.push(name);
    }
    return names;
  }

  /** Marks where a value starts and ends on the page (private-use characters no value here holds). */
  const mark = (s: string) => `\uE000${s}\uE001`;
  const marked = hostile.filter((s) => !/[\uE000\uE001]/.test(s)).map(mark);

  /** Every marked region of the page: each must be escaped text. */
  function expectMarkedEscaped(page: string, expected: number): void {
    const regions = [...page.matchAll(/\uE000([^\uE001]*)\uE001/g)].map(([, inner]) => inner);
    expect(regions.length).toBeGreaterThanOrEqual(expected);
    for (const region of regions) expect(region).toMatch(ESCAPED);
  }

  it.prop([marked, marked, marked])(
    'should show any record values, and any request query, only as text',
    (name, description, login) => {
      const record = {
        id: 1,
        name,
        radius_mm: 3,
        price: '1.5',
        is_discounted: false,
        created_at: '2024-05-01T12:00:00.000Z',
        updated_at: '2024-05-01T12:00:00.000Z',
        user: { id: 2, login },
        description,
        picture: null,
      };
      const rendered = renderResult(
        record,
        'html',
        MARBLES,
        request(200, `search=${encodeURIComponent(name)}`),
      );
      expect(rendered.headers['Content-Type']).toBe('text/html; charset=utf-8');
      expect(rendered.headers['Content-Security-Policy']).toMatch(/^default-src 'none'; /);
      const page = rendered.body!;
      // The record table, the edit form's value and initial value, each for name and description;
      // the login in the table.
      expectMarkedEscaped(page, 7);
      expect(page.match(/<script\b/g) ?? []).toHaveLength(1);
      for (const attr of attributeNames(page)) {
        expect(attr === 'style' || /^on/i.test(attr)).toBe(false);
      }
    },
  );

  it.prop([marked, fc.dictionary(marked, fc.array(marked, { maxLength: 2 }), { maxKeys: 3 })])(
    'should show any error message and field problems only as text',
    (message, errors) => {
      const failure = { status: 400, body: { message, errors } };
      const page = renderError('html', failure, request(400)).body!;
      expectMarkedEscaped(page, 1);
      expect(page).toContain(`<p class="error-message">${text(message).markup}</p>`);
      for (const attr of attributeNames(page)) expect(/^on/i.test(attr)).toBe(false);
    },
  );

  it('should indent XML one element per line, its text untouched', () => {
    const xml = encodeXml('hash', { message: 'a <b> & c', records: [1, 2] });
    expect(prettyXml(xml)).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<hash>',
        '  <message>a &lt;b&gt; &amp; c</message>',
        '  <records type="array">',
        '    <record type="integer">1</record>',
        '    <record type="integer">2</record>',
        '  </records>',
        '</hash>',
      ].join('\n'),
    );
  });
});
