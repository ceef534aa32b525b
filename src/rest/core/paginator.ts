import { InvalidQueryError, QueryParams, last } from './list-query';

/** The rows of one page: how many, after how many. */
export interface PageWindow {
  limit: number;
  offset: number;
}

export interface PaginatorOptions {
  /** Records per page. Default 20. */
  pageSize: number;
  /** Query parameter that holds the page number. Default `page`. */
  pageQueryParam: string;
  /** Query parameter by which a client overrides the page size; `null` forbids it. Default `page_size`. */
  pageSizeQueryParam: string | null;
  /** Ceiling on a client-requested page size; `null` removes it. Default 40. */
  maxPageSize: number | null;
  /** Whether the total count is computed; `false` omits `count` and `total_pages`. Default true. */
  pageTotalCount: boolean;
}

export const DEFAULT_PAGINATOR_OPTIONS: Readonly<PaginatorOptions> = Object.freeze({
  pageSize: 20,
  pageQueryParam: 'page',
  pageSizeQueryParam: 'page_size',
  maxPageSize: 40,
  pageTotalCount: true,
});

/** What one index request asks for: one page, or the whole filtered set. */
export type PageRequest = { all: true } | { all: false; page: number; pageSize: number };

/** One page of records and what the envelope needs to describe it. */
export class Page<T = unknown> {
  constructor(
    readonly results: T[],
    readonly page: number,
    readonly pageSize: number,
    /** Total of the filtered set; undefined when page_total_count is off. */
    readonly count: number | undefined,
    readonly hasNext: boolean,
    readonly pageQueryParam: string,
  ) {}
}

const DIGITS = /^\d+$/;

/** Page numbers and sizes beyond this are taken as this: far past any end, and safe as an OFFSET. */
const LARGEST = 1e12;

function whole(raw: string): number {
  return Math.min(Number(raw), LARGEST);
}

/**
 * Page-number pagination with a default size, a client override and a cap. `options` null means
 * pagination is disabled and every request gets the whole filtered set.
 */
export class Paginator {
  constructor(readonly options: Readonly<PaginatorOptions> | null) {}

  request(params: QueryParams): PageRequest {
    const options = this.options;
    if (!options) return { all: true };
    let pageSize = options.pageSize;
    if (options.pageSizeQueryParam !== null) {
      const raw = last(params[options.pageSizeQueryParam]);
      if (raw !== undefined && DIGITS.test(raw)) {
        const requested = whole(raw);
        if (requested === 0 && options.maxPageSize === null) return { all: true };
        if (requested > 0) pageSize = Math.min(requested, options.maxPageSize ?? requested);
      }
    }
    const rawPage = last(params[options.pageQueryParam]);
    const page = rawPage !== undefined && DIGITS.test(rawPage) ? Math.max(whole(rawPage), 1) : 1;
    return { all: false, page, pageSize };
  }

  /**
   * `request`, for STRICT_QUERY: a page that is not a whole number from 1 (`page=abc`, `page=0`)
   * or a page size that is not a whole number (`page_size=ten`) is an InvalidQueryError (400)
   * naming it, where `request` would take page 1 or the default size.
   */
  strictRequest(params: QueryParams): PageRequest {
    const options = this.options;
    if (options) {
      const errors: Record<string, string[]> = {};
      const page = last(params[options.pageQueryParam]);
      if (page !== undefined && !(DIGITS.test(page) && whole(page) >= 1)) {
        errors[options.pageQueryParam] = [`"${page}" is not a page number: a whole number from 1.`];
      }
      const sizeParam = options.pageSizeQueryParam;
      const size = sizeParam === null ? undefined : last(params[sizeParam]);
      if (sizeParam !== null && size !== undefined && !DIGITS.test(size)) {
        errors[sizeParam] = [`"${size}" is not a page size: a whole number.`];
      }
      if (Object.keys(errors).length > 0) throw new InvalidQueryError(errors);
    }
    return this.request(params);
  }

  /** Rows to fetch: one more than the page when there is no count, to learn whether a next page exists. */
  window(request: PageRequest): PageWindow | null {
    if (request.all) return null;
    const extra = this.options!.pageTotalCount ? 0 : 1;
    // Far past any end, the offset stays an integer SQL can read (no `1e+24`).
    const offset = Math.min((request.page - 1) * request.pageSize, Number.MAX_SAFE_INTEGER);
    return { limit: request.pageSize + extra, offset };
  }

  get countsTotal(): boolean {
    return this.options?.pageTotalCount ?? false;
  }

  /** The page, or the bare records when the request asked for all of them. */
  page<T>(request: PageRequest, records: T[], count: number | undefined): Page<T> | T[] {
    if (request.all) return records;
    const { page, pageSize } = request;
    let hasNext: boolean;
    if (count === undefined) {
      hasNext = records.length > pageSize;
      if (hasNext) records = records.slice(0, pageSize);
    } else {
      hasNext = page * pageSize < count;
    }
    return new Page(records, page, pageSize, count, hasNext, this.options!.pageQueryParam);
  }
}
