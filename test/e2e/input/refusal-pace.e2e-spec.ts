/**
 * One client's bodies refused while they arrive are answered at REFUSED_BODY_RATE (here 2 every
 * 2 s): at once up to the rate, then each when its turn comes (one a second), its connection read
 * no further meanwhile; the same client's other requests are not slowed. A turn more than 10 s
 * away is not waited for: that connection is closed without an answer. Raw sockets: the test sees
 * when each answer comes. (Times are only ever checked from below: an answer held for its turn
 * cannot come before it, however busy the machine.)
 */
import type { Server } from 'node:http';
import { useApp } from '../support/harness';
import { USERS } from '../support/fixtures';
import { Connection, firstAnswer, listenOnAnyPort } from '../support/raw-connection';

const DEEP = 'JSON body is nested more than 64 levels deep.';

describe("write: refused bodies are answered at their client's pace", () => {
  const t = useApp({ seedEach: { users: USERS }, refusedBodyRate: { limit: 2, windowSeconds: 2 } });
  let port = 0;
  const open: Connection[] = [];

  beforeAll(async () => {
    port = await listenOnAnyPort(t.app.getHttpServer() as Server);
  });

  afterEach(() => {
    for (const connection of open.splice(0)) connection.destroy();
  });

  /** A connection that sends a body 65 arrays deep (refused at its first chunk). */
  function sendDeep(): Connection {
    const body = '['.repeat(65) + ']'.repeat(65);
    const connection = new Connection(port);
    open.push(connection);
    connection.write(
      [
        'POST /api/demo/marbles HTTP/1.1',
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        '',
        body,
      ].join('\r\n'),
    );
    return connection;
  }

  /** When (performance.now()) `connection` has had its whole answer and was closed. */
  async function answeredAt(connection: Connection): Promise<number> {
    await connection.until((c) => c.closed, 'the answer and the close', 20_000);
    return performance.now();
  }

  it('should answer two refusals at once and the next ones a second apart, each in full', async () => {
    const started = performance.now();
    const connections = [sendDeep(), sendDeep(), sendDeep(), sendDeep()];
    const times = connections.map(answeredAt);
    // The same client's reads meanwhile are not held: answered before the third refusal.
    const read = t
      .http()
      .get('/api/demo/marbles')
      .then((res) => ({ status: res.status, at: performance.now() }));
    const [at, { status, at: readAt }] = await Promise.all([Promise.all(times), read]);
    expect(status).toBe(200);
    for (const connection of connections) {
      const answer = firstAnswer(connection.text);
      expect([answer.status, answer.headers.connection, answer.body]).toEqual([
        'HTTP/1.1 400 Bad Request',
        'close',
        JSON.stringify({ message: DEEP }),
      ]);
    }
    const sorted = [...at].sort((a, b) => a - b);
    expect(readAt).toBeLessThan(sorted[2]);
    // The third waited a turn (1 s), the fourth two (2 s).
    expect(sorted[2] - started).toBeGreaterThanOrEqual(950);
    expect(sorted[3] - started).toBeGreaterThanOrEqual(1950);
    expect(await t.stored('marbles')).toEqual([]);
  });

  it('should close a connection unanswered when its turn is more than 10 s away', async () => {
    // 2 every 2 s: turns a second apart, so the 12th refusal of a burst is 10 s away at least.
    const connections = Array.from({ length: 14 }, sendDeep);
    const unanswered = () => connections.filter((c) => c.closed && c.text === '');
    await Promise.race(
      connections.map((c) =>
        c.until((x) => x.closed && x.text === '', 'a connection closed unanswered', 20_000),
      ),
    );
    expect(unanswered().length).toBeGreaterThanOrEqual(1);
    // Those answered so far got their 400 in full.
    for (const connection of connections.filter((c) => c.text !== '')) {
      expect(firstAnswer(connection.text).body).toBe(JSON.stringify({ message: DEEP }));
    }
  });
});
