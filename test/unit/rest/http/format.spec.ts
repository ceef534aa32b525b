/**
 * Format negotiation: the Accept header, the suffix, `format=`, the method, and the browsable
 * API's switch, through the middleware as the application runs it.
 */
import type { NextFunction, Request, Response } from 'express';
import {
  negotiate,
  negotiateFormat,
  prefersStream,
} from '../../../../src/rest/http/request/format';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

interface Outcome {
  format?: string;
  asked?: string;
  status?: number;
  url: string;
}

/** Runs the middleware on a request and reports what it decided. */
function run(method: string, url: string, accept?: string, browsable = true): Outcome {
  const queryAt = url.indexOf('?');
  const query = Object.fromEntries(new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt)));
  const req = {
    method,
    url,
    headers: accept === undefined ? {} : { accept },
    query,
  } as unknown as Request;
  let status: number | undefined;
  const locals: Record<string, unknown> = {};
  const res = {
    locals,
    req,
    setHeader: () => res,
    status: (s: number) => {
      status = s;
      return res;
    },
    send: () => res,
  } as unknown as Response;
  let nexted = false;
  negotiateFormat({ browsable })(req, res, (() => (nexted = true)) as NextFunction);
  if (!nexted) return { status, url: req.url };
  return {
    format: locals.format as string,
    asked: locals.htmlAsked as string | undefined,
    url: req.url,
  };
}

/** What a GET gets: 'html', 'json', 'xml', or 406. */
function answer(url: string, accept?: string, method = 'GET', browsable = true): string | number {
  const outcome = run(method, url, accept, browsable);
  if (outcome.status !== undefined) return outcome.status;
  return outcome.format!;
}

describe('format negotiation with the browsable API on', () => {
  it.each([
    [BROWSER, 'html'],
    ['text/html', 'html'],
    ['text/html;q=0.9, application/json;q=0.8', 'html'],
    ['text/html, application/json', 'html'],
    ['application/xhtml+xml, text/html;q=0.95, application/xml;q=0.9', 'html'],
    ['TEXT/HTML', 'html'],
    ['*/*', 'json'],
    ['application/json, text/html', 'json'],
    ['text/html;q=0.5, application/json', 'json'],
    ['application/xml, text/html', 'xml'],
    ['text/html;q=0, */*', 'json'],
    ['text/*', 'xml'],
    ['text/*, application/json;q=0.9', 'xml'],
    ['application/xml', 'xml'],
    ['application/json', 'json'],
    ['image/png', 'json'],
    ['text/html;q=abc, application/xml;q=0.1', 'xml'],
  ])('should answer Accept: %s with %s', (accept, expected) => {
    expect(answer('/api/demo/marbles', accept)).toBe(expected);
  });

  it('should answer JSON with no Accept header', () => {
    expect(answer('/api/demo/marbles')).toBe('json');
  });

  it.each([
    ['/api/demo/marbles.html', 'html', '/api/demo/marbles'],
    ['/api/demo/marbles/7.html?only=id', 'html', '/api/demo/marbles/7?only=id'],
    ['/api/demo/marbles?format=html', 'html', '/api/demo/marbles?format=html'],
    ['/api/demo/marbles.json', 'json', '/api/demo/marbles'],
    ['/api/demo/marbles.xml', 'xml', '/api/demo/marbles'],
    ['/api/demo/marbles?format=json', 'json', '/api/demo/marbles?format=json'],
    ['/api/demo/marbles?format=xml', 'xml', '/api/demo/marbles?format=xml'],
  ])('should answer %s with %s whatever Accept says, routing %s', (url, expected, routed) => {
    for (const accept of [undefined, BROWSER, 'application/xml', 'application/json']) {
      expect(answer(url, accept)).toBe(expected);
      expect(run('GET', url, accept).url).toBe(routed);
    }
  });

  it('should record how the page was asked for', () => {
    expect(run('GET', '/api/demo/marbles', BROWSER).asked).toBe('accept');
    expect(run('GET', '/api/demo/marbles.html').asked).toBe('suffix');
    expect(run('GET', '/api/demo/marbles?format=html').asked).toBe('query');
  });

  it('should serve the page on GET and HEAD only: other methods get JSON, and 406 for .html', () => {
    expect(answer('/api/demo/marbles', BROWSER, 'HEAD')).toBe('html');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      expect(answer('/api/demo/marbles', BROWSER, method)).toBe('json');
      expect(answer('/api/demo/marbles', 'text/html', method)).toBe('json');
      expect(answer('/api/demo/marbles.html', undefined, method)).toBe(406);
      expect(answer('/api/demo/marbles?format=html', undefined, method)).toBe(406);
    }
  });

  it('should answer 406 to other explicit formats (the page for a browser: test/e2e)', () => {
    expect(answer('/api/demo/marbles.tsv')).toBe(406);
    expect(answer('/api/demo/marbles?format=yaml', 'application/json')).toBe(406);
  });
});

describe('format negotiation: CSV', () => {
  it('should answer CSV to the reads of a collection by suffix, format= and Accept', () => {
    for (const url of [
      '/api/demo/marbles.csv',
      '/api/demo/marbles/1?format=csv',
      '/api/plain/movies.CSV',
    ]) {
      expect([url, answer(url), answer(url, undefined, 'HEAD')]).toEqual([url, 'csv', 'csv']);
    }
    expect(answer('/api/demo/marbles', 'text/csv')).toBe('csv');
    expect(answer('/api/demo/marbles', 'text/csv, application/json')).toBe('csv');
    expect(answer('/api/demo/marbles', 'application/json;q=0.5, text/csv')).toBe('csv');
  });

  it('should leave Accept as it was where text/csv loses, or is named only by a wildcard', () => {
    expect(answer('/api/demo/marbles', 'application/json, text/csv')).toBe('json');
    expect(answer('/api/demo/marbles', 'text/csv;q=0.5, application/xml')).toBe('xml');
    expect(answer('/api/demo/marbles', 'text/csv;q=0')).toBe('json');
    expect(answer('/api/demo/marbles', 'text/*')).toBe('xml');
    expect(answer('/api/demo/marbles', BROWSER)).toBe('html');
  });

  it('should refuse an explicit CSV elsewhere with 406, and ignore Accept: text/csv there', () => {
    expect(answer('/api/demo/marbles.csv', undefined, 'POST')).toBe(406);
    expect(answer('/api.csv')).toBe(406);
    expect(answer('/health/live.csv')).toBe(406);
    expect(answer('/api/demo/marbles', 'text/csv', 'POST')).toBe('json');
    expect(answer('/health/live', 'text/csv')).toBe('json');
  });
});

describe('format negotiation with the browsable API off', () => {
  const browsable = false;

  it.each([
    [BROWSER, 'json'],
    ['text/html', 'json'],
    ['text/html, application/json', 'json'],
    ['application/xml, text/html', 'xml'],
    ['text/*', 'xml'],
    ['*/*', 'json'],
  ])('should answer Accept: %s with %s (a browser never falls into XML)', (accept, expected) => {
    expect(answer('/api/demo/marbles', accept, 'GET', browsable)).toBe(expected);
  });

  it('should refuse .html and format=html with 406', () => {
    expect(answer('/api/demo/marbles.html', undefined, 'GET', browsable)).toBe(406);
    expect(answer('/api/demo/marbles?format=html', BROWSER, 'GET', browsable)).toBe(406);
  });

  it('should keep negotiate() itself pure of the switch', () => {
    expect(negotiate(BROWSER, 'GET', true)).toBe('html');
    expect(negotiate(BROWSER, 'GET', false)).toBe('json');
  });

  it('should take a stream when Accept names text/event-stream at the top q, never at q=0', () => {
    const cases: [string, boolean][] = [
      ['text/event-stream', true],
      ['TEXT/EVENT-STREAM; charset=utf-8', true],
      ['application/json, text/event-stream', true],
      ['text/event-stream;q=0.5, */*;q=0.5', true],
      ['text/event-stream;q=0', false],
      ['text/event-stream; q=0.0, application/json', false],
      ['application/json, text/event-stream;q=0.9', false],
      ['*/*', false],
      ['text/*', false],
      [BROWSER, false],
    ];
    expect(cases.map(([accept]) => [accept, prefersStream(accept)])).toEqual(cases);
  });
});
