/**
 * Shared by the read-side suites (read-*.e2e-spec.ts): the exact headers and XML framing the
 * contract prescribes, and the fixture rows most suites start from.
 */
import type { Response } from 'supertest';
import { TestApp } from './harness';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';
export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** A whole XML document: the declaration, then the root element. */
export function xmlDocument(root: string): string {
  return `${XML_DECLARATION}\n${root}\n`;
}

/** A negotiated JSON response: its status, Content-Type and Vary header. */
export function expectJson(res: Response, status = 200): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe(JSON_TYPE);
  expect(res.headers['vary'].split(/,\s*/)).toContain('Accept');
}

/** A negotiated XML response: its status, Content-Type, Vary header and declaration. */
export function expectXml(res: Response, status = 200): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe(XML_TYPE);
  expect(res.headers['vary'].split(/,\s*/)).toContain('Accept');
  expect(res.text.startsWith(XML_DECLARATION)).toBe(true);
}

/** Ids of the records of an enveloped (`results`) or bare list body. */
export function ids(body: unknown): number[] {
  const list = Array.isArray(body) ? body : (body as { results: { id: number }[] }).results;
  return (list as { id: number }[]).map((r) => r.id);
}

/** Users without billing addresses yet; `setBillingEmail` links them once the emails exist. */
export async function insertUsers(t: TestApp, logins: string[]): Promise<void> {
  await t.insert(
    'users',
    logins.map((login, i) => ({ id: i + 1, login, email_id: null })),
  );
}

/** Makes `emailId` the billing address of `userId` (the email's `billing_user`). */
export async function setBillingEmail(t: TestApp, userId: number, emailId: number): Promise<void> {
  await t.dataSource.query('UPDATE users SET email_id = ? WHERE id = ?', [emailId, userId]);
}
