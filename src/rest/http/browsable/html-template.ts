/**
 * A small typed HTML template: `markup` is a tagged template whose interpolations are escaped unless
 * they are already `Html` (the result of another `markup` template). Escaping is therefore the
 * default, by construction: a value reaches the page unescaped only when code built it with
 * `markup`. Links go through `href`, which keeps only relative and http(s) URLs.
 */
import escapeHtml from 'escape-html';

/** Markup that is safe to insert as it is: built by `markup`, or text already escaped. */
export class Html {
  /** Only this module makes Html from a string; everyone else goes through `markup`. */
  private constructor(readonly markup: string) {}

  /** @internal */
  static trusted(markup: string): Html {
    return new Html(markup);
  }

  toString(): string {
    return this.markup;
  }
}

/** What may be interpolated: text (escaped), numbers, markup, lists of those, and nothing. */
export type Interpolation =
  Html | string | number | boolean | null | undefined | readonly Interpolation[];

/**
 * `markup\`<a href="${href(url)}">${name}</a>\``: every interpolation is escaped for text and for
 * a double-quoted attribute value (`& < > " '`), unless it is Html. `false`, null and undefined
 * render as nothing, so `${cond && markup\`...\`}` works.
 */
export function markup(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return Html.trusted(out);
}

function render(value: Interpolation): string {
  if (value instanceof Html) return value.markup;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value as string | number | boolean));
}

/** Text escaped for HTML text and double-quoted attribute values. */
export function text(value: string): Html {
  return Html.trusted(escapeHtml(value));
}

/** Markup joined with a separator. */
export function join(parts: readonly Html[], separator: Html | string = ''): Html {
  return Html.trusted(parts.map((p) => p.markup).join(render(separator)));
}

/**
 * Where a link may lead: a path on this service, a query or fragment, or an http(s) URL; never
 * whitespace or a backslash (browsers read `/\\host` as `//host`).
 */
const SAFE_URL = /^(?:https?:\/\/[^\s\\]+|\/(?![/\\])[^\s\\]*|[?#][^\s\\]*)$/i;

/**
 * A URL for an `href` or `action`: relative (`/path`, `?query`, `#id`) or absolute http(s), else
 * `#` (no `javascript:`, `data:` or protocol-relative `//host` links). The result is escaped for
 * the attribute it goes in.
 */
export function href(url: string): Html {
  return text(SAFE_URL.test(url) ? url : '#');
}

/** Whether `href` would keep the URL. */
export function isSafeUrl(url: string): boolean {
  return SAFE_URL.test(url);
}
