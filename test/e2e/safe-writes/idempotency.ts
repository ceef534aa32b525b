/**
 * What the Idempotency-Key suites share: the seed, the messages of the refusals, and the check
 * that a replay is the first response byte for byte.
 */
import { type Response } from 'supertest';
import { USERS, marbleRow } from '../support/fixtures';

export const AMBER = marbleRow(7, 'Amber', { price: '9.23', user_id: 1 });
export const SEED = { users: USERS, marbles: [AMBER] };
export const REPLAYED = 'idempotent-replayed';
export const MISMATCH =
  'This Idempotency-Key was used for another request (method, path, format or body); use a new key.';
export const RUNNING =
  'A request with this Idempotency-Key is still in progress; retry shortly to get its response.';
export const BAD_KEY = 'Idempotency-Key must be 1 to 255 printable ASCII characters.';

/** The response of a replay is the first one, byte for byte, with the replay marked. */
export function expectReplayOf(replay: Response, first: Response): void {
  expect(first.headers[REPLAYED]).toBeUndefined();
  expect(replay.headers[REPLAYED]).toBe('true');
  expect({
    status: replay.status,
    type: replay.headers['content-type'],
    location: replay.headers.location,
    etag: replay.headers.etag,
    text: replay.text,
  }).toEqual({
    status: first.status,
    type: first.headers['content-type'],
    location: first.headers.location,
    etag: first.headers.etag,
    text: first.text,
  });
}

/** One response wrote (201, not replayed); every other one is its replay or a 409. */
export function expectOneWrite(responses: Response[]): void {
  const written = responses.filter((r) => r.status === 201 && !r.headers[REPLAYED]);
  expect(written).toHaveLength(1);
  for (const res of responses) {
    if (res === written[0]) continue;
    if (res.status === 409) expect(res.body).toEqual({ message: RUNNING });
    else expectReplayOf(res, written[0]);
  }
}
