import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { AddressInfo } from 'node:net';
import { Connections, post } from '../../../src/webhooks/sender';
import { newSecret, secretKey, sign, signatures } from '../../../src/webhooks/signature';
import { nonPublic, parseTarget, Resolver, TargetRefused } from '../../../src/webhooks/targets';

describe('webhook targets', () => {
  it.each([
    ['8.8.8.8', undefined],
    ['93.184.215.14', undefined],
    ['2606:4700::1111', undefined],
    ['127.0.0.1', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['172.32.0.1', undefined],
    ['192.168.10.10', 'a private address'],
    ['100.64.1.1', 'a shared (carrier-grade NAT) address'],
    ['169.254.169.254', 'a link-local address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a reserved address'],
    ['::1', 'a loopback address'],
    ['::', 'the unspecified address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:8.8.8.8', undefined],
    ['fe80::1', 'a link-local address'],
    ['fc00::1', 'a private (unique local) address'],
    ['64:ff9b::7f00:1', 'a NAT64 address'],
  ])('should tell whether %s is public', (address, kind) => {
    expect(nonPublic(address)).toBe(kind);
  });

  it('should allow http and private addresses with WEBHOOK_ALLOW_PRIVATE', async () => {
    const url = parseTarget('http://127.0.0.1:9/x', true);
    expect(await new Resolver(true).target(url)).toBeUndefined();
    expect(() => parseTarget('http://127.0.0.1:9/x', false)).toThrow(TargetRefused);
  });

  it('should connect to the address checked, with the Host of the URL', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.headers.host} ${req.url}`);
      res.writeHead(202).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const connections = new Connections();
    try {
      // A name nothing resolves: only the pinned address can reach the server.
      const url = new URL(`http://hooks.invalid:${port}/in?x=1`);
      const outcome = await post(
        url,
        { address: '127.0.0.1', family: 4 },
        { 'content-type': 'application/json' },
        Buffer.from('{}'),
        2000,
        connections,
      );
      expect(outcome.status).toBe(202);
      expect(seen).toEqual([`hooks.invalid:${port} /in?x=1`]);
    } finally {
      connections.close();
      server.close();
    }
  });
});

describe('webhook signatures', () => {
  it('should make whsec_ secrets of 32 random bytes', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(secret)).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });

  it('should sign as the Standard Webhooks reference library does', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0ZTQo9MGDyA=';
    const body = '{"test": 2432232314}';
    const reference = new Webhook(secret).sign(
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      new Date(1614265330 * 1000),
      body,
    );
    expect(sign(secretKey(secret), 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe(
      reference,
    );
    const two = signatures(
      [secretKey(secret), secretKey(newSecret())],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      body,
    );
    expect(two.split(' ')).toHaveLength(2);
    expect(two.startsWith(`${reference} v1,`)).toBe(true);
  });
});
