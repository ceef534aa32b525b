/** Links between the browsable pages, and the query strings they carry. */
import { PageContext } from './html-context';

/** A link to another page of the browsable API, asking for HTML the way this page was asked. */
export function linkTo(ctx: PageContext, path: string, query = ''): string {
  if (ctx.asked === 'suffix') return `${path}.html${query ? `?${query}` : ''}`;
  if (ctx.asked === 'query') {
    const kept = withoutFormat(query);
    return `${path}?${kept ? `${kept}&` : ''}format=html`;
  }
  return query ? `${path}?${query}` : path;
}

/** The query without its `format` parameters. */
export function withoutFormat(query: string): string {
  return queryWithout(query, ['format']).join('&');
}

/** The query's parts (`name=value`, as sent) but those whose name is one of `names`. */
export function queryWithout(query: string, names: readonly string[]): string[] {
  return query.split('&').filter((part) => {
    if (part === '') return false;
    const eq = part.indexOf('=');
    return !names.includes(decode(eq === -1 ? part : part.slice(0, eq)));
  });
}

/** The query's parameters, decoded, last value winning. */
export function params(query: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of query.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    out.set(
      decode(eq === -1 ? part : part.slice(0, eq)),
      decode(eq === -1 ? '' : part.slice(eq + 1)),
    );
  }
  return out;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/**
 * The links of a `Link` header that carry a title (`<url>; rel="first"; title="Start again from
 * the oldest event kept"`, as the change feed's 409 and 410 send, or a webhook subscription's
 * link to its deliveries): a page offers them to follow. Only the form the service itself writes
 * is read (its URLs have no `>`, its titles no `"`).
 */
export function titledLinks(header: string | undefined): { href: string; title: string }[] {
  const found = (header ?? '').matchAll(/<([^>]*)>;[^,<]*?\btitle="([^"]*)"/g);
  return [...found].map(([, href, title]) => ({ href, title }));
}
