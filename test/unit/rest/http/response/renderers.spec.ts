import * as field from '../../../../../src/rest/core/fields';
import { Page } from '../../../../../src/rest/core/paginator';
import { tag } from '../../../../../src/rest/core/preconditions';
import { Message, RenderRequest, ShapelessBody } from '../../../../../src/rest/core/output/render';
import {
  RENDERERS,
  renderError,
  renderResult,
} from '../../../../../src/rest/http/response/renderers';
import { defineResource } from '../../../../../src/rest/core/resource';

const WIDGETS = defineResource({
  examples: { id: 1, deletable: [1, 2], create: {}, update: {}, updateAll: [{ id: 1 }] },
  path: '/api/demo/widgets',
  singular: 'widget',
  plural: 'widgets',
  label: 'Widget',
  table: 'widgets',
  fields: [field.integer('id'), field.string('name')],
});

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
const JSON_TYPE = 'application/json; charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';

/** A request whose every piece says how often it was asked for. */
function request(method: string, status: number, query = '') {
  const asked = { url: 0, pathUrl: 0, allowedMethods: 0 };
  const req: RenderRequest = {
    method,
    status,
    url: () => {
      asked.url++;
      return { base: 'http://example.test/api/demo/widgets.json', query };
    },
    pathUrl: () => {
      asked.pathUrl++;
      return 'http://example.test/api/demo/widgets';
    },
    allowedMethods: () => {
      asked.allowedMethods++;
      return ['GET', 'HEAD', 'POST', 'OPTIONS'];
    },
  };
  return { req, asked };
}

describe('renderResult', () => {
  it('should render a record created with Location, its ETag and the Content-Type, in order', () => {
    const { req, asked } = request('POST', 201);
    const record = tag({ id: 7, name: 'Cog' }, '"7.1"');
    const rendered = renderResult(record, 'json', WIDGETS, req);
    expect(rendered).toEqual({
      headers: {
        Location: 'http://example.test/api/demo/widgets/7',
        ETag: '"7.1"',
        'Content-Type': JSON_TYPE,
      },
      body: '{"id":7,"name":"Cog"}',
    });
    expect(Object.keys(rendered.headers)).toEqual(['Location', 'ETag', 'Content-Type']);
    expect(asked).toEqual({ url: 0, pathUrl: 1, allowedMethods: 0 });
  });

  it('should give no Location to a record answered with 200', () => {
    const { req } = request('PATCH', 200);
    const rendered = renderResult(tag({ id: 7, name: 'Cog' }, '"7.2"'), 'xml', WIDGETS, req);
    expect(rendered).toEqual({
      headers: { ETag: '"7.2"', 'Content-Type': XML_TYPE },
      body: DECLARATION + '<hash><id type="integer">7</id><name>Cog</name></hash>\n',
    });
  });

  it('should give no Location to a 201 that is not one record (bulk create)', () => {
    const { req, asked } = request('POST', 201);
    const rendered = renderResult(new Message('Created 2 widgets.', []), 'json', WIDGETS, req);
    expect(rendered.headers).toEqual({ 'Content-Type': JSON_TYPE });
    expect(rendered.body).toBe('{"message":"Created 2 widgets.","records":[]}');
    expect(asked.pathUrl).toBe(0);
  });

  it('should render no body and no Content-Type for no result (204)', () => {
    const { req } = request('DELETE', 204);
    expect(renderResult(undefined, 'xml', WIDGETS, req)).toEqual({ headers: {}, body: undefined });
  });

  it('should answer OPTIONS with Allow and its document', () => {
    const { req, asked } = request('OPTIONS', 200);
    const rendered = renderResult(new ShapelessBody({ openapi: '3.0.3' }), 'json', WIDGETS, req);
    expect(rendered).toEqual({
      headers: { Allow: 'GET, HEAD, POST, OPTIONS', 'Content-Type': JSON_TYPE },
      body: '{"openapi":"3.0.3"}',
    });
    expect(asked.allowedMethods).toBe(1);
  });

  it('should build the links of a page from the request URL, asked for once', () => {
    const { req, asked } = request('GET', 200, 'page=2&page_size=1');
    const page = new Page([{ id: 2, name: 'Nut' }], 2, 1, 3, true, 'page');
    const rendered = renderResult(page, 'json', WIDGETS, req);
    expect(JSON.parse(rendered.body!)).toEqual({
      count: 3,
      page: 2,
      page_size: 1,
      total_pages: 3,
      next: 'http://example.test/api/demo/widgets.json?page=3&page_size=1',
      previous: 'http://example.test/api/demo/widgets.json?page=1&page_size=1',
      results: [{ id: 2, name: 'Nut' }],
    });
    expect(asked).toEqual({ url: 1, pathUrl: 0, allowedMethods: 0 });
  });

  it('should not ask a plain read for anything of the request', () => {
    const { req, asked } = request('GET', 200);
    renderResult(tag({ id: 1, name: 'A' }, '"1.1"'), 'json', WIDGETS, req);
    expect(asked).toEqual({ url: 0, pathUrl: 0, allowedMethods: 0 });
  });
});

describe('renderError', () => {
  it('should send the error headers, then the Content-Type, and the body in the format', () => {
    const failure = {
      status: 409,
      body: { message: 'Busy.' },
      headers: { 'Retry-After': '1' },
    };
    const rendered = renderError('xml', failure);
    expect(rendered).toEqual({
      headers: { 'Retry-After': '1', 'Content-Type': XML_TYPE },
      body: DECLARATION + '<hash><message>Busy.</message></hash>\n',
    });
    expect(Object.keys(rendered.headers)).toEqual(['Retry-After', 'Content-Type']);
  });

  it('should render field errors in JSON', () => {
    const failure = { status: 400, body: { message: 'Invalid.', errors: { name: ['is bad.'] } } };
    expect(renderError('json', failure)).toEqual({
      headers: { 'Content-Type': JSON_TYPE },
      body: '{"message":"Invalid.","errors":{"name":["is bad."]}}',
    });
  });
});

describe('RENDERERS', () => {
  it('should have one entry per format, each with its Content-Type', () => {
    expect(
      Object.fromEntries(Object.entries(RENDERERS).map(([k, r]) => [k, r.contentType])),
    ).toEqual({
      json: JSON_TYPE,
      xml: XML_TYPE,
      html: 'text/html; charset=utf-8',
      csv: 'text/csv; charset=utf-8; header=present',
    });
  });

  it('should answer the errors of a CSV request in JSON', () => {
    const failure = { status: 400, body: { message: 'Invalid query parameters.' } };
    expect(renderError('csv', failure)).toEqual({
      headers: { 'Content-Type': JSON_TYPE },
      body: '{"message":"Invalid query parameters."}',
    });
  });
});
