/**
 * The database going away and coming back, without restarting the service: 503 with Retry-After
 * while it is gone, normal answers once it is back. The app talks to MariaDB through a TCP proxy
 * that the test stops and starts. MySQL only: an embedded SQLite file cannot become unreachable
 * this way.
 */
import { AddressInfo, Server, Socket, connect, createServer } from 'node:net';
import { testDatabase, useApp } from '../support/harness';

class Proxy {
  private server?: Server;
  private sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Refuses new connections and cuts the open ones, as a database that went down. */
  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server!.close(resolve));
  }
}

describe('database availability (MySQL)', () => {
  const database = testDatabase();
  if (database.type !== 'mysql') throw new Error('run with TEST_DATABASE=mysql');
  const target = new URL(database.url);
  const proxy = new Proxy(target.hostname, Number(target.port || 3306));
  beforeAll(() => proxy.start());
  // The app reaches the database through the proxy, whose port is known once it has started.
  const t = useApp(() => {
    const url = new URL(database.url);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    return {
      database: { ...database, url: url.toString() },
      seed: {
        users: [{ id: 1, login: 'ann' }],
        phone_numbers: [{ id: 1, number: '555-0100', user_id: 1 }],
      },
    };
  });
  // After the app has closed (hooks run in the order they are declared).
  afterAll(() => proxy.stop().catch(() => undefined));

  it('should answer 503 with Retry-After while the database is down, and 200 again once it is back', async () => {
    await t.http().get('/api/demo/phone_numbers/1').expect(200);

    await proxy.stop();
    for (const path of [
      '/api/demo/phone_numbers/1',
      '/api/demo/phone_numbers',
      '/api/demo/marbles.xml',
    ]) {
      const down = await t.http().get(path);
      expect(down.status).toBe(503);
      expect(down.headers['retry-after']).toBe('5');
      expect(down.text).not.toMatch(/ECONNREFUSED|SELECT|mysql|QueryFailed|Error:/i);
    }
    const json = await t.http().get('/api/demo/phone_numbers/1');
    expect(json.body).toEqual({ message: 'The database is unavailable; try again shortly.' });
    const xml = await t.http().get('/api/demo/phone_numbers/1.xml');
    expect(xml.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<hash><message>The database is unavailable; try again shortly.</message></hash>\n',
    );
    const write = await t.request({
      method: 'post',
      path: '/api/demo/phone_numbers',
      body: { number: '555-0101', user_id: 1 },
    });
    expect(write.status).toBe(503);

    await proxy.start();
    const back = await t.http().get('/api/demo/phone_numbers/1').expect(200);
    expect(back.body).toEqual({ id: 1, number: '555-0100', user: { id: 1, login: 'ann' } });
    await t
      .http()
      .post('/api/demo/phone_numbers')
      .send({ number: '555-0101', user_id: 1 })
      .expect(201);
  });
});
