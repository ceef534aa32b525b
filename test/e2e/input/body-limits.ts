/**
 * What the body-limit suites (write-json-limits, write-xml-limits) check of a body over a limit:
 * 400 with the limit's message, in JSON on the collection's path and in XML on its `.xml` path,
 * and nothing written.
 */
import type { Response } from 'supertest';
import type { TestApp } from '../support/harness';
import { expectError, expectXml, xmlMessage } from '../support/http';

export type Post = (body: string, path?: string) => Promise<Response>;

export async function expectRefusedInBoth(
  t: TestApp,
  post: Post,
  body: string,
  message: string,
): Promise<void> {
  expectError(await post(body), 400, { message });
  const xml = await post(body, '/api/demo/marbles.xml');
  expectXml(xml, 400);
  expect(xml.text).toBe(xmlMessage(message));
  expect(await t.stored('marbles')).toEqual([]);
}
