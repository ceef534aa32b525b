/**
 * The frame of every browsable page: the document head with the static files, the breadcrumbs and
 * the token field, the page's body (its data first), then the request and response and the
 * answer's body in JSON and XML, collapsed.
 */
import { ResourceDefinition } from '../../core/resource';
import { DOCS, PageContext, SERVICE, statusLine } from './html-context';
import { liveNotice } from './html-live';
import { linkTo, withoutFormat } from './html-links';
import { Html, href, markup } from './html-template';

/** What a list ignored of its query, above its data: a typo otherwise answers everything. */
function ignoredNotice(ctx: PageContext): Html | undefined {
  if (!ctx.ignored) return undefined;
  return markup`<div class="ignored" role="note">
    <p><strong>Ignored query parameters</strong> (the answer is as if they were not there;
      <code>STRICT_QUERY=true</code> makes them a 400):</p>
    <ul>
      ${Object.entries(ctx.ignored).map(
        ([name, problems]) => markup`<li><code>${name}</code>: ${problems.join(' ')}</li>`,
      )}
    </ul>
  </div>`;
}

/**
 * A route's description as the OpenAPI document has it, its Markdown code spans (`` `after` ``)
 * as `<code>`: the rest is text.
 */
export function inlineCode(description: string): Html {
  const parts = description.split('`');
  // An odd count of backticks leaves the last one as text.
  if (parts.length % 2 === 0) return markup`${description}`;
  return markup`${parts.map((part, i) => (i % 2 === 1 ? markup`<code>${part}</code>` : part))}`;
}

/**
 * A page: where it is and the token at the top; the title, the other formats and the page's own
 * body (the data first); the request, the response headers and the body as JSON and XML
 * collapsed at the end.
 */
export function layout(
  ctx: PageContext,
  resource: ResourceDefinition | undefined,
  body: Html,
  json: string,
  xml: string,
): string {
  const page = markup`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>${ctx.title} · ${SERVICE}</title>
        <link rel="stylesheet" href="${href(ctx.assets.style)}" />
        <link rel="icon" href="${href(ctx.assets.icon)}" type="image/svg+xml" />
        <script src="${href(ctx.assets.script)}" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to the content</a>
        <header class="top">
          ${breadcrumbs(ctx, resource)} ${tokenControl(ctx.token)}
        </header>
        <main id="main" data-path="${ctx.path}" data-collection="${resource?.path ?? ''}">
          <div class="heading">
            <h1>${ctx.title}</h1>
            ${ctx.description ? markup`<p class="description">${inlineCode(ctx.description)}</p>` : undefined}
            ${formats(ctx, resource)}
          </div>
          <pre id="options-output" class="code" hidden tabindex="0"></pre>
          <div class="flash" id="flash-box" hidden>
            <p id="flash" role="status" aria-live="polite"></p>
            <button type="button" class="link" id="flash-close">Dismiss</button>
          </div>
          ${ignoredNotice(ctx)}
          ${liveNotice(ctx.live, ctx.status, ctx.assets.live)}
          ${body}
          ${exchange(ctx, json, xml)}
        </main>
      </body>
    </html>
`;
  return page.markup;
}

/**
 * The bearer token's field (assets/browsable.js keeps it in the tab's sessionStorage). Where
 * writes need it, in full view; otherwise behind a small "API token" control.
 */
function tokenControl(required: boolean): Html {
  const form = markup`<form class="token" id="token-form" data-required="${required ? 'true' : 'false'}">
    <label for="api-token"
      >Bearer token (API token or JWT)${required ? '' : ' (not required)'}</label
    >
    <input id="api-token" type="password" autocomplete="off" spellcheck="false" />
    <button type="submit">Use</button>
    <button type="button" id="token-forget">Forget</button>
    <span id="token-state" class="muted" role="status"></span>
  </form>`;
  if (required) return form;
  return markup`<details class="token-box" id="token-box">
    <summary>API token</summary>
    ${form}
  </details>`;
}

/** A collection's change feed, which answers no CSV (an event's record has no fixed columns). */
const FEED_PATH = /\/events\/?$/;

/** The same answer in the other formats, the documentation and the OPTIONS metadata. */
function formats(ctx: PageContext, resource: ResourceDefinition | undefined): Html {
  const query = withoutFormat(ctx.query);
  // The root takes no suffix: `/?format=json`.
  const suffixed = (suffix: string) =>
    ctx.path === '/'
      ? `/?${query ? `${query}&` : ''}format=${suffix.slice(1)}`
      : ctx.path.replace(/\/$/, '') + suffix + (query ? `?${query}` : '');
  return markup`<p class="formats">
    As <a href="${href(suffixed('.json'))}">JSON</a> ·
    <a href="${href(suffixed('.xml'))}">XML</a> ·
    ${resource && ctx.status < 400 && !FEED_PATH.test(ctx.path) ? markup`<a href="${href(suffixed('.csv'))}">CSV</a> ·` : undefined}
    <a href="${DOCS}">API documentation</a>
    ${
      resource
        ? markup`·
            <button type="button" class="link" id="options-button" data-url="${resource.path}">
              OPTIONS metadata
            </button>`
        : undefined
    }
  </p>`;
}

/** The request, the response's status and headers, and its body as JSON and XML: collapsed. */
function exchange(ctx: PageContext, json: string, xml: string): Html {
  const requestLine = `${ctx.method} ${ctx.path}${ctx.asked === 'suffix' ? '.html' : ''}${ctx.query ? `?${ctx.query}` : ''}`;
  const status = markup`<strong class="status status-${Math.floor(ctx.status / 100)}xx"
    >${statusLine(ctx.status)}</strong
  >`;
  return markup`<details class="exchange" id="exchange">
    <summary>
      Request and response:
      <code class="request-line">${requestLine}</code> → ${status}
    </summary>
    <dl class="headers">
      <dt>Status</dt>
      <dd>${status}</dd>
      ${ctx.headers.map(
        ([name, value]) =>
          markup`<dt>${name}</dt>
            <dd><code>${value}</code></dd>`,
      )}
    </dl>
    <details open>
      <summary>JSON</summary>
      <pre class="code" tabindex="0"><code>${json}</code></pre>
    </details>
    <details>
      <summary>XML</summary>
      <pre class="code" tabindex="0"><code>${prettyXml(xml)}</code></pre>
    </details>
  </details>`;
}

function breadcrumbs(ctx: PageContext, resource: ResourceDefinition | undefined): Html {
  const crumbs: Html[] = [markup`<li><a href="${DOCS}">API</a></li>`];
  const path = ctx.path.replace(/\/$/, '');
  if (resource) {
    const rest = path.slice(resource.path.length).split('/').filter(Boolean);
    const here = rest.length === 0;
    crumbs.push(
      here
        ? markup`<li>
            <a href="${href(linkTo(ctx, resource.path))}" aria-current="page">${resource.plural}</a>
          </li>`
        : markup`<li><a href="${href(linkTo(ctx, resource.path))}">${resource.plural}</a></li>`,
    );
    rest.forEach((segment, i) => {
      const target = `${resource.path}/${rest.slice(0, i + 1).join('/')}`;
      crumbs.push(
        i === rest.length - 1
          ? markup`<li><a href="${href(linkTo(ctx, target))}" aria-current="page">${segment}</a></li>`
          : markup`<li><a href="${href(linkTo(ctx, target))}">${segment}</a></li>`,
      );
    });
  } else {
    crumbs.push(markup`<li><span aria-current="page">${path || '/'}</span></li>`);
  }
  return markup`<nav aria-label="Breadcrumb" class="crumbs">
    <ol>
      ${crumbs}
    </ol>
  </nav>`;
}

// ---------------------------------------------------------------------------------------------
// XML, indented

/**
 * The XML document indented one element per line. Its text holds no `<` (the encoder escapes
 * it), so the tags are exactly the `<…>` runs.
 */
export function prettyXml(xml: string): string {
  const tokens = xml.split(/(<[^>]+>)/).filter((t) => t.trim() !== '');
  let depth = 0;
  const lines: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const pad = '  '.repeat(depth);
    if (token.startsWith('<?')) lines.push(token);
    else if (token.startsWith('</')) {
      depth--;
      lines.push('  '.repeat(depth) + token);
    } else if (token.startsWith('<') && token.endsWith('/>')) lines.push(pad + token);
    else if (token.startsWith('<')) {
      const inner = tokens[i + 1];
      const close = tokens[i + 2];
      if (inner !== undefined && !inner.startsWith('<') && close?.startsWith('</')) {
        lines.push(pad + token + inner + close);
        i += 2;
      } else {
        lines.push(pad + token);
        depth++;
      }
    } else lines.push(pad + token);
  }
  return lines.join('\n');
}
