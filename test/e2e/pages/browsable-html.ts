/**
 * Reading the browsable API's pages as text in the e2e suites: the headers every page carries, its
 * start tags and links, its markup with the whitespace squashed, and the checks that it holds no
 * inline code.
 */
import { Response } from 'supertest';

export const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
  "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const HTML_TYPE = 'text/html; charset=utf-8';

/** The headers every HTML page carries. */
export function expectPage(res: Response, status = 200): void {
  expect({
    status: res.status,
    type: res.headers['content-type'],
    csp: res.headers['content-security-policy'],
    nosniff: res.headers['x-content-type-options'],
    cache: res.headers['cache-control'],
  }).toEqual({ status, type: HTML_TYPE, csp: CSP, nosniff: 'nosniff', cache: 'no-store' });
  expect(res.headers['vary'].split(/,\s*/)).toContain('Accept');
}

/** The start tags of a page, with their attributes (values are double-quoted and escaped). */
export function tags(page: string): { name: string; attrs: Record<string, string> }[] {
  const out: { name: string; attrs: Record<string, string> }[] = [];
  const tag =
    /<([a-zA-Z][\w-]*)((?:\s+[^\s=/>"']+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+))?)*)\s*\/?>/g;
  for (const [, name, rest] of page.matchAll(tag)) {
    const attrs: Record<string, string> = {};
    for (const [, attr, value] of rest.matchAll(/([^\s=/>"']+)(?:\s*=\s*"([^"]*)")?/g)) {
      attrs[attr.toLowerCase()] = value ?? '';
    }
    out.push({ name: name.toLowerCase(), attrs });
  }
  return out;
}

/** The links of a page: their text (whitespace squashed) and unescaped href. */
export function links(page: string): [string, string][] {
  return [...page.matchAll(/<a\b([^>]*)>([^<]*)<\/a>/g)].map(([, attrs, label]) => [
    label.trim(),
    (/href="([^"]*)"/.exec(attrs)?.[1] ?? '').replace(/&amp;/g, '&'),
  ]);
}

/** Markup with its whitespace squashed, for comparisons that do not depend on indentation. */
export function squash(page: string): string {
  return page.replace(/\s+/g, ' ').replace(/> </g, '><').replace(/ >/g, '>');
}

/** No inline script, no style attribute or element, no event handler, no javascript: URL. */
export function expectNoInlineCode(page: string): void {
  const scripts = page.match(/<script\b[^>]*>[\s\S]*?<\/script>/gi) ?? [];
  expect(scripts.length).toBeGreaterThanOrEqual(1);
  expect(scripts[0]).toMatch(
    /^<script src="\/assets\/browsable\.[0-9a-f]{12}\.js" defer><\/script>$/,
  );
  // And on list and record pages, the live notice's (docs/events.md).
  for (const script of scripts.slice(1)) {
    expect(script).toMatch(/^<script src="\/assets\/live\.[0-9a-f]{12}\.js" defer><\/script>$/);
  }
  expect(scripts.length).toBeLessThanOrEqual(2);
  const all = tags(page);
  expect(all.length).toBeGreaterThan(50);
  for (const { name, attrs } of all) {
    expect(name).not.toBe('style');
    for (const [attr, value] of Object.entries(attrs)) {
      expect(attr === 'style' || attr.startsWith('on')).toBe(false);
      if (attr === 'href' || attr === 'src' || attr === 'action') {
        expect(value).toMatch(/^(\/(?!\/)|\?|#|https?:\/\/)/);
      }
    }
  }
}

/** The text of the page's h1. */
export function titleOf(page: string): string {
  return /<h1>([^<]*)<\/h1>/.exec(page)?.[1] ?? '';
}

/** Text escaped as the pages escape it. */
export function escape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
