/**
 * Database unreachable: 503 with a `Retry-After` header and a `{message}` body in the negotiated
 * format, with no driver text. The database is made unreachable by closing the application's
 * connection pool after start. Recovery without a restart (the service reconnecting when the
 * database comes back) is not covered here: a closed pool does not come back.
 */
import type { Response } from 'supertest';
import { useApp } from '../support/harness';
import { marbleRow } from '../support/fixtures';
import { ANY_XML_MESSAGE, expectJson, expectNoLeak, expectXml } from '../support/http';

const DRIVER_TEXT =
  /mysql|sqlite|typeorm|driver|pool|connection is not|not established|ECONN|ER_|SQL/i;

describe('write: database unavailable', () => {
  const t = useApp({
    seed: async () => {
      await t.insert('marbles', [marbleRow(1, 'Amber')]);
      const before = await t.http().get('/api/demo/marbles/1');
      expect(before.status).toBe(200);
      await t.dataSource.destroy();
    },
  });

  /** 503 with Retry-After and a plain message that names no driver. */
  function expectUnavailable(res: Response) {
    expectJson(res, 503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.body).toEqual({ message: expect.any(String) });
    expect(res.body.message).not.toMatch(DRIVER_TEXT);
    expectNoLeak(res);
  }

  it('should answer a read with 503, Retry-After and a plain message', async () => {
    expectUnavailable(await t.http().get('/api/demo/marbles'));
  });

  it('should answer a write with 503 and Retry-After', async () => {
    expectUnavailable(await t.http().post('/api/demo/marbles').send({ name: 'Ruby' }));
  });

  it('should answer 503 in XML when XML is negotiated', async () => {
    const res = await t.http().get('/api/demo/marbles/1').set('Accept', 'application/xml');
    expectXml(res, 503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.text).toMatch(ANY_XML_MESSAGE);
    expect(res.text).not.toMatch(DRIVER_TEXT);
  });

  it('should still answer routes that need no database', async () => {
    const res = await t.http().get('/api/demo/emails/ping');
    expectJson(res, 200);
    expect(res.body).toEqual({ message: 'pong' });
  });
});
