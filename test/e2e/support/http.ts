/**
 * Requests and the checks every response must pass: the exact headers, the XML
 * framing, error bodies that leak nothing, Location, and server-set timestamps.
 */
import type { Response } from 'supertest';
import { TestApp } from './harness';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';
export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

export const VALIDATION_FAILED = 'Validation failed; nothing was saved.';
export const BULK_INVALID = 'Some items are invalid; nothing was saved.';
export const UNKNOWN_MARBLE_FIELD = 'Unknown field; marble has no such field.';

/** The XML document of any `{message}` body. */
export const ANY_XML_MESSAGE =
  /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<hash><message>[^<]+<\/message><\/hash>\n$/;

/** A server-generated timestamp in a JSON response. */
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A whole XML document: the declaration, then the root element. */
export function xmlDocument(root: string): string {
  return `${XML_DECLARATION}\n${root}\n`;
}

/** The XML document of a `{message}` body. */
export function xmlMessage(message: string): string {
  return xmlDocument(`<hash><message>${message}</message></hash>`);
}

/** A JSON response: status and Content-Type. */
export function expectJson(res: Response, status = 200): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({
    status,
    type: JSON_TYPE,
  });
}

/** An XML response: status, Content-Type and declaration. */
export function expectXml(res: Response, status = 200): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({
    status,
    type: XML_TYPE,
  });
  expect(res.text.startsWith(XML_DECLARATION)).toBe(true);
}

/** `Vary: Accept`, which every negotiated response carries. */
export function expectVaryAccept(res: Response): void {
  expect(res.headers['vary'].split(/,\s*/)).toContain('Accept');
}

/** A negotiated JSON response: its status, Content-Type and Vary header. */
export function expectNegotiatedJson(res: Response, status = 200): void {
  expectJson(res, status);
  expectVaryAccept(res);
}

/** A negotiated XML response: its status, Content-Type, Vary header and declaration. */
export function expectNegotiatedXml(res: Response, status = 200): void {
  expectXml(res, status);
  expectVaryAccept(res);
}

/** A negotiated JSON response whose body is exactly `expected`, down to its text. */
export function expectExactJson(res: Response, expected: unknown): void {
  expectNegotiatedJson(res);
  expect(res.body).toStrictEqual(expected);
  expect(res.text).toBe(JSON.stringify(expected));
}

/** A negotiated XML response whose text is exactly the document of `root`. */
export function expectExactXml(res: Response, root: string): void {
  expectNegotiatedXml(res);
  expect(res.text).toBe(xmlDocument(root));
}

/** GET `path`: a negotiated JSON response. */
export async function getJson(t: TestApp, path: string): Promise<Response> {
  const res = await t.http().get(path);
  expectNegotiatedJson(res);
  return res;
}

/** One test per path: GET answers `status` with nothing but a `{message}` in JSON. */
export function itAnswersMessage(t: TestApp, paths: string[], title: string, status: number): void {
  it.each(paths)(title, async (path) => {
    expectMessage(await t.http().get(path), status);
  });
}

/** The answer of a bulk write that succeeded. */
export function bulkDone(action: 'create' | 'update' | 'destroy', records: unknown[]) {
  return { message: `Bulk ${action} successful.`, records };
}

/** The values of the named fields of each record, in order. */
export function pick(records: Record<string, unknown>[], ...fields: string[]): unknown[][] {
  return records.map((record) => fields.map((field) => record[field]));
}

/** An error response in JSON: exact status and body, nothing leaked. */
export function expectError(res: Response, status: number, body: unknown): void {
  expectJson(res, status);
  expect(res.body).toEqual(body);
  expectNoLeak(res);
}

/** 404 with the message naming what was not found. */
export function expectNotFound(res: Response, message: string): void {
  expectError(res, 404, { message });
}

/** The body of a create or update refused as invalid: the fixed message, the errors by field. */
export function invalid(errors: unknown) {
  return { message: VALIDATION_FAILED, errors };
}

/** A create or update refused as invalid: 400 and `invalid(errors)`. */
export function expectInvalid(res: Response, errors: unknown): void {
  expectError(res, 400, invalid(errors));
}

/** A bulk write refused as invalid: 422, the fixed message, errors aligned to the items. */
export function expectBulkInvalid(res: Response, errors: unknown[]): void {
  expectError(res, 422, { message: BULK_INVALID, errors });
}

/** An error answered with `{message}` and nothing else, in JSON. */
export function expectMessage(res: Response, status: number): void {
  expectNegotiatedJson(res, status);
  expect(res.body).toStrictEqual({ message: expect.any(String) });
}

/**
 * What no response body may show: SQL, driver and ORM error text, stack frames, source paths. An
 * error says what was wrong with the request in the client's terms, never how the server failed.
 */
export const LEAKS: readonly (string | RegExp)[] = [
  'SELECT',
  'INSERT',
  'UPDATE ',
  'DELETE FROM',
  'QueryFailedError',
  'ER_',
  'SQLITE',
  'TypeORM',
  'sqlMessage',
  'node_modules',
  /\n\s+at /,
  /\.[jt]s:\d+/,
];

/** `text` shows none of the LEAKS. */
export function expectNothingLeaked(text: string): void {
  for (const leak of LEAKS) {
    if (typeof leak === 'string') expect(text).not.toContain(leak);
    else expect(text).not.toMatch(leak);
  }
}

/** No stack trace, SQL or driver text in a response's body. */
export function expectNoLeak(res: Response): void {
  expectNothingLeaked(res.text ?? '');
}

/** The Location header of a create: an absolute URL of the new record. */
export function expectLocation(res: Response, path: string): void {
  expect(res.headers.location).toMatch(
    new RegExp(`^https?://[^/]+${path.replace(/[.]/g, '\\.')}$`),
  );
}

/**
 * Server-set timestamps of a record just created or updated: the ISO form with milliseconds,
 * inside the window of the request (`before`..`after`, from Date.now()).
 */
export function expectStampedWithin(value: unknown, before: number, after: number): void {
  expect(value).toMatch(ISO_MS);
  const at = Date.parse(value as string);
  expect(at).toBeGreaterThanOrEqual(before);
  expect(at).toBeLessThanOrEqual(after);
}

/** Ids of the records of an enveloped (`results`) or bare list body. */
export function ids(body: unknown): number[] {
  const list = Array.isArray(body) ? body : (body as { results: { id: number }[] }).results;
  return (list as { id: number }[]).map((r) => r.id);
}

/** The ids each listing of `path` answers, in order, for each query: `{ 'user_id=3': [5, 6] }`. */
export async function expectIds(
  t: TestApp,
  path: string,
  expected: Record<string, number[]>,
): Promise<void> {
  for (const [query, want] of Object.entries(expected)) {
    const res = await t.http().get(`${path}?${query}`);
    expectNegotiatedJson(res);
    expect({ query, ids: ids(res.body) }).toEqual({ query, ids: want });
  }
}

/** The methods of an Allow header. */
export function allowOf(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
}
