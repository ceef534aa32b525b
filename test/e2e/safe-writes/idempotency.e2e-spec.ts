/**
 * Idempotency-Key on every write: the first request runs, its response is stored with its write;
 * the same request again gets that response byte for byte with `Idempotent-Replayed: true` and
 * writes nothing; another request under the key is 422; a key whose request is still running in
 * the same instance is 409, one running in another instance is waited for and replayed; 4xx
 * answers are stored too; malformed keys are 400; expired keys start over and are purged.
 */
import { createHash } from 'node:crypto';
import { AddressInfo, connect } from 'node:net';
import { createConnection } from 'mysql2/promise';
import { firstNodeOf } from '../../../scripts/test-database';
import request, { type Response } from 'supertest';
import { IdempotencyPurge } from '../../sources';
import { TestApp, useApp } from '../support/harness';
import { useRawHttp } from '../support/raw-http';
import { XML_TYPE, expectError, expectJson, expectNoLeak, expectXml } from '../support/http';
import {
  AMBER,
  BAD_KEY,
  MISMATCH,
  REPLAYED,
  RUNNING,
  SEED,
  expectOneWrite,
  expectReplayOf,
} from './idempotency';

async function count(t: TestApp, table: string): Promise<number> {
  const [row] = await t.query(`SELECT COUNT(*) AS n FROM ${table}`);
  return Number(row.n);
}

/** Waits for `condition`, polling: no fixed sleeps. */
async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('write: Idempotency-Key', () => {
  const t = useApp({ seedEach: SEED });
  // Two headers of one name, which supertest cannot send.
  const raw = useRawHttp(t);

  const post = (key: string, body: object, path = '/api/demo/marbles') =>
    t.http().post(path).set('Idempotency-Key', key).send(body);

  it('should replay a create byte for byte (status, body, Location, ETag) and create one record', async () => {
    const first = await post('create-1', { name: 'Jade', price: '3.5' });
    expectJson(first, 201);
    expect(first.headers.etag).toBe(`"${first.body.id}.1"`);
    const again = await post('create-1', { name: 'Jade', price: '3.5' });
    expectReplayOf(again, first);
    const third = await post('create-1', { name: 'Jade', price: '3.5' });
    expectReplayOf(third, first);
    expect(await count(t, 'marbles')).toBe(2);
  });

  it('should replay an XML create in XML', async () => {
    const send = () =>
      t
        .http()
        .post('/api/demo/marbles.xml')
        .set('Idempotency-Key', 'xml-1')
        .set('Content-Type', 'application/xml')
        .send('<marble><name>Opal</name><radius-mm type="integer">4</radius-mm></marble>');
    const first = await send();
    expectXml(first, 201);
    const again = await send();
    expectReplayOf(again, first);
    expect(again.headers['content-type']).toBe(XML_TYPE);
    expect(await count(t, 'marbles')).toBe(2);
  });

  it('should flip a retried toggle once, and replay the first answer', async () => {
    const toggle = () =>
      t.http().patch('/api/demo/marbles/7/toggle_is_discounted').set('Idempotency-Key', 'flip');
    const first = await toggle();
    expect(first.body).toEqual({ message: 'Is discounted toggled to true.' });
    expect(first.headers.etag).toBe('"7.2"');
    const again = await toggle();
    expectReplayOf(again, first);
    expect((await t.stored('marbles'))[0].is_discounted).toBe(true);
  });

  it('should replay update, adjust_price, destroy and the bulk forms, writing each once', async () => {
    /** The ids bulk-create gave (unique, not consecutive: 3 apart on a Galera cluster). */
    let created: number[] = [];
    const steps: { key: string; run: (key: string) => Promise<Response>; status: number }[] = [
      {
        key: 'put',
        run: (k) =>
          t.http().put('/api/demo/marbles/7').set('Idempotency-Key', k).send({ radius_mm: 3 }),
        status: 200,
      },
      {
        key: 'patch',
        run: (k) =>
          t.http().patch('/api/demo/marbles/7').set('Idempotency-Key', k).send({ radius_mm: 4 }),
        status: 200,
      },
      {
        key: 'price',
        run: (k) =>
          t
            .http()
            .patch('/api/demo/marbles/7/adjust_price')
            .set('Idempotency-Key', k)
            .send({ price: 8 }),
        status: 200,
      },
      {
        key: 'bulk-create',
        run: (k) =>
          t
            .http()
            .post('/api/demo/marbles')
            .set('Idempotency-Key', k)
            .send([{ name: 'A' }, { name: 'B' }])
            .then((res) => {
              if (res.status === 201 && created.length === 0)
                created = (res.body as { records: { id: number }[] }).records.map((r) => r.id);
              return res;
            }),
        status: 201,
      },
      {
        key: 'bulk-update',
        run: (k) =>
          t
            .http()
            .patch('/api/demo/marbles')
            .set('Idempotency-Key', k)
            .send([{ id: 7, radius_mm: 9 }]),
        status: 200,
      },
      {
        key: 'bulk-put',
        run: (k) =>
          t
            .http()
            .put('/api/demo/marbles')
            .set('Idempotency-Key', k)
            .send([{ id: 7, radius_mm: 10 }]),
        status: 200,
      },
      {
        key: 'destroy',
        run: (k) => t.http().delete('/api/demo/marbles/7').set('Idempotency-Key', k),
        status: 204,
      },
      {
        key: 'bulk-destroy',
        run: (k) => t.http().delete('/api/demo/marbles').set('Idempotency-Key', k).send(created),
        status: 200,
      },
    ];
    for (const step of steps) {
      const first = await step.run(step.key);
      expect([step.key, first.status]).toEqual([step.key, step.status]);
      const versions = await t.query('SELECT id, version FROM marbles ORDER BY id');
      const again = await step.run(step.key);
      expectReplayOf(again, first);
      expect(await t.query('SELECT id, version FROM marbles ORDER BY id')).toEqual(versions);
    }
    expect(await count(t, 'marbles')).toBe(0);
  });

  it('should store a 4xx answer and replay it; the key stays bound to that request', async () => {
    const first = await post('bad-1', { name: '' });
    expect(first.status).toBe(400);
    const again = await post('bad-1', { name: '' });
    expectReplayOf(again, first);
    const other = await post('bad-1', { name: 'Fine' });
    expectError(other, 422, { message: MISMATCH });
    const missing = await t
      .http()
      .patch('/api/demo/marbles/99')
      .set('Idempotency-Key', 'nf')
      .send({});
    expect(missing.status).toBe(404);
    expectReplayOf(
      await t.http().patch('/api/demo/marbles/99').set('Idempotency-Key', 'nf').send({}),
      missing,
    );
    expect(await count(t, 'marbles')).toBe(1);
  });

  it('should answer 422 for the key with another body, path, method or format, writing nothing', async () => {
    const first = await post('same', { name: 'Jade' });
    expect(first.status).toBe(201);
    const others = [
      post('same', { name: 'Jade ' }),
      post('same', { name: 'Jade' }, '/api/demo/emails'),
      post('same', { name: 'Jade' }, '/api/demo/marbles.xml'),
      post('same', { name: 'Jade' }, '/api/demo/marbles?x=1'),
      t.http().put('/api/demo/marbles').set('Idempotency-Key', 'same').send({ name: 'Jade' }),
      t
        .http()
        .post('/api/demo/marbles')
        .set('Idempotency-Key', 'same')
        .set('Accept', 'application/xml')
        .send({ name: 'Jade' }),
    ];
    for (const res of await Promise.all(others)) {
      expect(res.status).toBe(422);
      expect(res.text).toContain('This Idempotency-Key was used for another request');
      expectNoLeak(res);
    }
    expect(await count(t, 'marbles')).toBe(2);
  });

  it('should refuse two Idempotency-Key headers with 400 naming it, and run nothing', async () => {
    const message = 'Request has more than one Idempotency-Key header; send one key per request.';
    for (const line of ['POST /api/demo/marbles HTTP/1.1', 'PATCH /api/demo/marbles/1 HTTP/1.1']) {
      const res = await raw.send(
        line,
        [
          'Host: 127.0.0.1',
          'Content-Type: application/json',
          'Idempotency-Key: k-1',
          'Idempotency-Key: k-2',
        ],
        '{"name":"Twice keyed"}',
      );
      expect({ line, status: res.status, body: JSON.parse(res.body) }).toEqual({
        line,
        status: 400,
        body: { message },
      });
    }
    expect(await count(t, 'marbles')).toBe(1);
    expect((await t.stored('marbles')).map((m) => m.name)).not.toContain('Twice keyed');
    // One header listing one key with a comma in it is one key.
    expect((await post('k-1, k-2', { name: 'Comma key' })).status).toBe(201);
  });

  it('should refuse a malformed key with 400 in the negotiated format, and run nothing', async () => {
    for (const key of ['', 'a'.repeat(256), 'clé', 'tab\there']) {
      const res = await post(key, { name: `Key ${key.length}` });
      expectError(res, 400, { message: BAD_KEY });
      const xml = await t
        .http()
        .post('/api/demo/marbles.xml')
        .set('Idempotency-Key', key)
        .send({ name: 'X' });
      expectXml(xml, 400);
    }
    expect(await count(t, 'marbles')).toBe(1);
    const longest = await post('~'.repeat(255), { name: 'Longest key' });
    expect(longest.status).toBe(201);
    const spaced = await post('a key with spaces', { name: 'Spaced key' });
    expect(spaced.status).toBe(201);
  });

  it('should not store a 5xx: the retry runs again and can succeed', async () => {
    const q = (name: string) => t.dataSource.driver.escape(name);
    const rename = (from: string, to: string) =>
      t.query(
        t.dialect === 'mysql'
          ? `RENAME TABLE ${q(from)} TO ${q(to)}`
          : `ALTER TABLE ${q(from)} RENAME TO ${q(to)}`,
      );
    // The table gone for a moment: the write fails with a 500 (what an outage or a bug gives).
    await rename('phone_numbers', 'phone_numbers_away');
    let failed: Response;
    try {
      // Straight to the server, past the harness's OpenAPI check: a 500 is documented nowhere.
      failed = await request(t.app.getHttpServer())
        .post('/api/demo/phone_numbers')
        .set('Idempotency-Key', 'outage')
        .send({ number: '555 0199', user_id: 1 });
    } finally {
      await rename('phone_numbers_away', 'phone_numbers');
    }
    expectError(failed, 500, { message: 'Internal server error.' });
    expect(await count(t, 'idempotency_keys')).toBe(0);
    const retried = await post(
      'outage',
      { number: '555 0199', user_id: 1 },
      '/api/demo/phone_numbers',
    );
    expect([retried.status, retried.headers[REPLAYED]]).toEqual([201, undefined]);
    expect(await count(t, 'phone_numbers')).toBe(1);
  });

  it('should ignore the key on reads', async () => {
    const res = await t.http().get('/api/demo/marbles/7').set('Idempotency-Key', 'read');
    expect([res.status, res.headers[REPLAYED]]).toEqual([200, undefined]);
    expect(await count(t, 'idempotency_keys')).toBe(0);
  });

  it("should answer 409 to a key an earlier version's running request claimed, and take over its claim once its lease ended", async () => {
    const body = { name: 'Busy' };
    const fingerprint = createHash('sha256')
      .update(`POST /api/demo/marbles json\n${JSON.stringify(body)}`)
      .digest('hex');
    const claim = (expiresAt: number) =>
      t.insert('idempotency_keys', [
        { idempotency_key: 'busy', fingerprint, claim: 'another-instance', expires_at: expiresAt },
      ]);
    await claim(Date.now() + 60_000);
    const busy = await post('busy', body);
    expectError(busy, 409, { message: RUNNING });
    expect(busy.headers['retry-after']).toBe('1');
    expect(await count(t, 'marbles')).toBe(1);

    await t.query('DELETE FROM idempotency_keys');
    await claim(Date.now() - 1);
    const taken = await post('busy', body);
    expect([taken.status, taken.headers[REPLAYED]]).toEqual([201, undefined]);
    expectReplayOf(await post('busy', body), taken);
    expect(await count(t, 'marbles')).toBe(2);
  });

  it('should run an expired key as a new request, and purge expired keys', async () => {
    const toggle = () =>
      t.http().patch('/api/demo/marbles/7/toggle_is_discounted').set('Idempotency-Key', 'old');
    expect((await toggle()).body.message).toBe('Is discounted toggled to true.');
    await post('kept', { name: 'Kept' });
    await t.query("UPDATE idempotency_keys SET expires_at = 1 WHERE idempotency_key = 'old'");
    const fresh = await toggle();
    expect([fresh.body.message, fresh.headers[REPLAYED]]).toEqual([
      'Is discounted toggled to false.',
      undefined,
    ]);
    await t.query("UPDATE idempotency_keys SET expires_at = 1 WHERE idempotency_key = 'old'");
    await t.app.get(IdempotencyPurge).run();
    const left = await t.query('SELECT idempotency_key AS k FROM idempotency_keys');
    expect(left.map((r) => r.k)).toEqual(['kept']);
  });

  it('should give concurrent requests with one key one write: the others replay it or get 409', async () => {
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => post('race', { name: 'Race' })),
    );
    expectOneWrite(responses);
    expect(await count(t, 'marbles')).toBe(2);
  }, 30_000);

  // Many claimers of one key at once: the claim is the insert of the key row, a duplicate means
  // another request has it, and its row is then read without a lock, so claimers never wait on
  // each other's locks (a deadlock would be a 503 once its retries ran out).
  it.each([50, 200])(
    'should give %i concurrent requests with one key one write and no 5xx',
    async (n) => {
      const responses = await Promise.all(
        Array.from({ length: n }, () => post(`crowd-${n}`, { name: `Crowd ${n}` })),
      );
      expect(responses.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);
      expectOneWrite(responses);
      expect(await t.query('SELECT id FROM marbles WHERE name = ?', [`Crowd ${n}`])).toHaveLength(
        1,
      );
    },
    60_000,
  );

  it('should let exactly one of 50 concurrent requests take over a key whose retention ended', async () => {
    const first = await post('crowd-expired', { name: 'Again' });
    expectJson(first, 201);
    // Retention over, and the record gone (its name is unique): the key's request runs anew.
    await t.query(
      "UPDATE idempotency_keys SET expires_at = 1 WHERE idempotency_key = 'crowd-expired'",
    );
    await t.query('DELETE FROM marbles WHERE id = ?', [first.body.id]);
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => post('crowd-expired', { name: 'Again' })),
    );
    expectOneWrite(responses);
    expect(await t.query("SELECT id FROM marbles WHERE name = 'Again'")).toHaveLength(1);
  }, 60_000);

  if (process.env.TEST_DATABASE === 'mysql') {
    // MySQL only: an outside connection stands for another instance whose write has stored its
    // answer under the key and not committed yet (on SQLite it would hold the only write lock).
    describe.each([
      ['commits', 'COMMIT'],
      ['rolls back', 'ROLLBACK'],
    ])('when another instance holding the key %s', (_, end) => {
      it('should wait for it, then replay its answer or write', async () => {
        const body = { radius_mm: 30 };
        const fingerprint = createHash('sha256')
          .update(`PATCH /api/demo/marbles/7 json\n${JSON.stringify(body)}`)
          .digest('hex');
        // Their answer: a marble body (the replay is checked against the OpenAPI document).
        const theirs = (await t.http().get('/api/demo/marbles/7')).text;
        const outside = await createConnection(firstNodeOf(process.env.TEST_MYSQL_URL!));
        try {
          await outside.query('BEGIN');
          await outside.query(
            'INSERT INTO idempotency_keys (idempotency_key, fingerprint, claim, status,' +
              ' content_type, etag, body, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            [
              'twin',
              fingerprint,
              '',
              200,
              'application/json; charset=utf-8',
              '"7.9"',
              Buffer.from(theirs),
              Date.now() + 60_000,
            ],
          );
          const pending = t
            .http()
            .patch('/api/demo/marbles/7')
            .set('Idempotency-Key', 'twin')
            .send(body)
            .then((res) => res);
          // The service's write is done and its insert of the key waits for the outside one (the
          // processlist, not innodb_trx: that is a cache that polling would keep from refreshing).
          await until(
            async () =>
              (
                await t.query(
                  "SELECT 1 FROM information_schema.processlist WHERE info LIKE 'INSERT INTO `idempotency_keys`%'",
                )
              ).length > 0,
          );
          await outside.query(end);
          const res = await pending;
          const radius = (await t.stored('marbles'))[0].radius_mm;
          if (end === 'COMMIT') {
            expect([res.status, res.headers[REPLAYED], res.headers.etag, res.text]).toEqual([
              200,
              'true',
              '"7.9"',
              theirs,
            ]);
            expect(radius).toBe(AMBER.radius_mm);
          } else {
            expectJson(res, 200);
            expect([res.headers[REPLAYED], res.body.radius_mm]).toEqual([undefined, 30]);
            expect(radius).toBe(30);
            const [row] = await t.query('SELECT status, body FROM idempotency_keys');
            expect([row.status, String(row.body)]).toEqual([200, res.text]);
          }
        } finally {
          await outside.end();
        }
      }, 30_000);
    });
  }

  it('should create one record when the client drops the connection mid-request and retries', async () => {
    const server = t.app.getHttpServer();
    if (!server.listening)
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const body = JSON.stringify({ name: 'Dropped' });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(
      'POST /api/demo/marbles HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Idempotency-Key: dropped\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // Gone once the server has stored its answer under the key, before the answer reached it.
    await until(async () => (await count(t, 'idempotency_keys')) > 0);
    socket.destroy();

    let retry: Response;
    do retry = await post('dropped', { name: 'Dropped' });
    while (retry.status === 409);
    // The dropped request went on and committed: the retry gets its response.
    expectJson(retry, 201);
    expect([retry.body.name, retry.headers[REPLAYED]]).toEqual(['Dropped', 'true']);
    expect(await t.query("SELECT id FROM marbles WHERE name = 'Dropped'")).toHaveLength(1);
    expect(retry.headers.location).toMatch(new RegExp(`/api/demo/marbles/${retry.body.id}$`));
  }, 30_000);
});
