/**
 * A body over the limit costs nothing to refuse: a `Content-Length` over 1 MiB is answered 413
 * before any of the body is read, and with `Expect: 100-continue` without a `100 Continue` (the
 * client never sends it); the connection then closes. A body within the limit that asks for
 * `100 Continue` gets it, and is served. Raw sockets: the test sees every byte the server sends,
 * and when. A JSON or XML body past a limit of its own (keys, values, depth, elements) is answered
 * 400 at the chunk that passes it, and the connection closes: the rest is never waited for.
 */
import type { Server } from 'node:http';
import { useApp } from '../support/harness';
import { Connection, firstAnswer, listenOnAnyPort } from '../support/raw-connection';
import { USERS } from '../support/fixtures';
import { xmlMessage } from '../support/http';

const TOO_LARGE = 'Request body is larger than 1048576 bytes.';

/** One chunk of a chunked body. */
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

describe('write: a body over the limit is refused before it is read', () => {
  const t = useApp({ seedEach: { users: USERS } });
  let port = 0;

  beforeAll(async () => {
    port = await listenOnAnyPort(t.app.getHttpServer() as Server);
  });

  const head = (lines: string[]) =>
    ['POST /api/demo/marbles HTTP/1.1', 'Host: 127.0.0.1', ...lines, '', ''].join('\r\n');

  it('should answer Expect: 100-continue with 413 and no 100 Continue when Content-Length is over 1 MiB', async () => {
    for (const [accept, type, body] of [
      [
        'application/json',
        'application/json; charset=utf-8',
        JSON.stringify({ message: TOO_LARGE }),
      ],
      ['application/xml', 'application/xml; charset=utf-8', xmlMessage(TOO_LARGE)],
    ]) {
      const connection = new Connection(port);
      try {
        connection.write(
          head([
            'Content-Type: application/json',
            'Content-Length: 10485760',
            'Expect: 100-continue',
            `Accept: ${accept}`,
          ]),
        );
        // The client sends nothing more: the answer comes all the same, and the connection ends.
        await connection.until((c) => c.closed, 'the connection to close');
        expect(connection.text).not.toContain('100 Continue');
        const answer = firstAnswer(connection.text);
        expect([answer.status, answer.headers['content-type'], answer.body]).toEqual([
          'HTTP/1.1 413 Payload Too Large',
          type,
          body,
        ]);
      } finally {
        connection.destroy();
      }
    }
    expect(await t.stored('marbles')).toEqual([]);
  });

  it('should answer 413 to a Content-Length over 1 MiB before the body is sent', async () => {
    const connection = new Connection(port);
    try {
      connection.write(
        head(['Content-Type: application/json', 'Content-Length: 10485760']) +
          '{"name": "Huge", "description": "',
      );
      // 10 MiB announced, 35 bytes sent: the answer does not wait for the rest.
      await connection.until((c) => c.text.includes('\r\n\r\n{'), 'the answer');
      const answer = firstAnswer(connection.text);
      expect([answer.status, answer.body]).toEqual([
        'HTTP/1.1 413 Payload Too Large',
        JSON.stringify({ message: TOO_LARGE }),
      ]);
      // The server ends the connection; what the client sends meanwhile is dropped.
      connection.write('d'.repeat(64 * 1024));
      await connection.until((c) => c.closed, 'the connection to close');
    } finally {
      connection.destroy();
    }
    expect(await t.stored('marbles')).toEqual([]);
  });

  it('should answer 413 to a chunked body as soon as it passes 1 MiB, not once it has all come', async () => {
    const connection = new Connection(port);
    try {
      connection.write(
        head(['Content-Type: application/json', 'Transfer-Encoding: chunked']) +
          chunk('{"name": "Chunked", "description": "'),
      );
      // 1 MiB and a bit, in 64 KiB chunks; the body never ends.
      for (let sent = 0; sent <= 1024 * 1024; sent += 64 * 1024) {
        connection.write(chunk('d'.repeat(64 * 1024)));
      }
      await connection.until((c) => c.text.includes('\r\n\r\n{'), 'the answer');
      const answer = firstAnswer(connection.text);
      expect([answer.status, answer.body]).toEqual([
        'HTTP/1.1 413 Payload Too Large',
        JSON.stringify({ message: TOO_LARGE }),
      ]);
      await connection.until((c) => c.closed, 'the connection to close');
    } finally {
      connection.destroy();
    }
    expect(await t.stored('marbles')).toEqual([]);
  });

  it('should answer 400 to a JSON or XML body past a limit of its own after its first part, not once it has all come', async () => {
    // A hostile body of 1,000,000 bytes (announced; within 1 MiB), of which only the first
    // 64 KiB (JSON: 6,000 keys; XML: 6,000 attributes of one element) or 300 KiB (XML: 30,000
    // elements of an attribute each) are sent: the answer comes all the same, and the connection
    // ends.
    let json = '{"name": "Wide"';
    for (let i = 0; json.length < 64 * 1024; i++) json += `, "k${i}": 1`;
    let xml = '<marble><name>Flat</name>';
    for (let i = 0; xml.length < 300 * 1024; i++) xml += `<x a="1"/>`;
    let wide = '<marble><name>Wide</name><x';
    for (let i = 0; wide.length < 64 * 1024; i++) wide += ` a${i}="1"`;
    for (const [type, body, message] of [
      ['application/json', json, 'JSON body has an object with more than 1000 keys.'],
      ['application/xml', xml, 'XML body has more than 25000 elements and attributes.'],
      ['application/xml', wide, 'XML body has an element with more than 1000 attributes.'],
    ]) {
      const connection = new Connection(port);
      try {
        connection.write(
          head([`Content-Type: ${type}`, 'Content-Length: 1000000', 'Accept: application/json']) +
            body,
        );
        await connection.until((c) => c.closed, 'the connection to close');
        const answer = firstAnswer(connection.text);
        expect([answer.status, answer.headers.connection, answer.body]).toEqual([
          'HTTP/1.1 400 Bad Request',
          'close',
          JSON.stringify({ message }),
        ]);
      } finally {
        connection.destroy();
      }
    }
    expect(await t.stored('marbles')).toEqual([]);
  });

  it('should answer 400 to a chunked JSON body nested too deep at its first chunk', async () => {
    const connection = new Connection(port);
    try {
      connection.write(
        head(['Content-Type: application/json', 'Transfer-Encoding: chunked']) +
          chunk('['.repeat(64 * 1024)),
      );
      // 64 KiB of a body meant to be 2 MB; the rest is never sent, and the body never ends.
      await connection.until((c) => c.closed, 'the connection to close');
      const answer = firstAnswer(connection.text);
      expect([answer.status, answer.body]).toEqual([
        'HTTP/1.1 400 Bad Request',
        JSON.stringify({ message: 'JSON body is nested more than 64 levels deep.' }),
      ]);
    } finally {
      connection.destroy();
    }
  });

  it('should send 100 Continue to a body within the limit, and serve it', async () => {
    const body = JSON.stringify({ name: 'Continued' });
    const connection = new Connection(port);
    try {
      connection.write(
        head([
          'Content-Type: application/json',
          `Content-Length: ${body.length}`,
          'Expect: 100-continue',
          'Connection: close',
        ]),
      );
      await connection.until((c) => c.text.includes('\r\n\r\n'), '100 Continue');
      expect(connection.text).toBe('HTTP/1.1 100 Continue\r\n\r\n');
      connection.write(body);
      await connection.until((c) => c.closed, 'the answer');
      const answer = firstAnswer(connection.text.slice('HTTP/1.1 100 Continue\r\n\r\n'.length));
      expect(answer.status).toBe('HTTP/1.1 201 Created');
      expect(JSON.parse(answer.body).name).toBe('Continued');
    } finally {
      connection.destroy();
    }
    expect((await t.stored('marbles')).map((m) => m.name)).toEqual(['Continued']);
  });
});
