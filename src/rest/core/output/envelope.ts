import { Page } from '../paginator';

export interface Envelope<T> {
  count?: number;
  page: number;
  page_size: number;
  total_pages?: number;
  next?: string;
  previous?: string;
  results: T[];
}

/**
 * The pagination envelope of a page. `url` is the absolute URL of the request without its query
 * and `query` its raw query string: next and previous keep every parameter, in order and as sent,
 * and change only the page number.
 */
export function buildEnvelope<T>(page: Page<T>, url: string, query: string): Envelope<T> {
  const envelope = {} as Envelope<T>;
  if (page.count !== undefined) envelope.count = page.count;
  envelope.page = page.page;
  envelope.page_size = page.pageSize;
  if (page.count !== undefined) envelope.total_pages = Math.ceil(page.count / page.pageSize);
  if (page.hasNext) envelope.next = pageUrl(url, query, page.pageQueryParam, page.page + 1);
  if (page.page > 1) envelope.previous = pageUrl(url, query, page.pageQueryParam, page.page - 1);
  envelope.results = page.results;
  return envelope;
}

export function pageUrl(url: string, query: string, param: string, page: number): string {
  const parts = query === '' ? [] : query.split('&');
  let found = false;
  for (let i = 0; i < parts.length; i++) {
    const eq = parts[i].indexOf('=');
    const name = decodeName(eq === -1 ? parts[i] : parts[i].slice(0, eq));
    if (name !== param) continue;
    if (found) {
      parts.splice(i--, 1);
    } else {
      parts[i] = `${encodeURIComponent(param)}=${page}`;
      found = true;
    }
  }
  if (!found) parts.push(`${encodeURIComponent(param)}=${page}`);
  return `${url}?${parts.join('&')}`;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
