/**
 * HTTP for the reliability probe (bench/probe/probe.js, bench/probe/probe-locks.js): requests on the loopback
 * that never throw, one written byte for byte, a bounded pool of workers, and what an answer
 * says about a write.
 */
'use strict';

const http = require('node:http');
const net = require('node:net');

const HOST = '127.0.0.1';

/** A request with JSON in and out; `error` instead of a status when there was no answer. */
function send(port, method, urlPath, { headers = {}, body, timeoutMs = 15_000, agent } = {}) {
  return new Promise((resolve) => {
    const all = { ...headers };
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    if (payload) {
      all['Content-Type'] = 'application/json';
      all['Content-Length'] = payload.length;
    }
    const req = http.request(
      { host: HOST, port, path: urlPath, method, headers: all, agent: agent ?? false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, headers: res.headers, text, json });
        });
        res.on('error', (error) => resolve({ error: error.message }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', (error) => resolve({ error: error.message }));
    req.end(payload);
  });
}

/**
 * One request written byte for byte on a fresh socket (the method and the path exactly as
 * given: Node's client would upper-case the method); the status of the answer, or 0.
 */
function raw(port, method, target, headers, body) {
  return new Promise((resolve) => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const lines = [`${method} ${target} HTTP/1.1`, `Host: ${HOST}:${port}`, 'Connection: close'];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    if (payload) lines.push('Content-Type: application/json');
    lines.push(`Content-Length: ${Buffer.byteLength(payload)}`);
    const socket = net.connect({ host: HOST, port });
    let head = '';
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('connect', () => socket.write(`${lines.join('\r\n')}\r\n\r\n${payload}`));
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (head.includes('\r\n')) socket.destroy();
    });
    socket.on('close', () => {
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      resolve(match ? Number(match[1]) : 0);
    });
    socket.on('error', () => {});
  });
}

/** Runs `task(item)` for every item, `width` at a time. */
async function pool(items, width, task) {
  let next = 0;
  const workers = Array.from({ length: width }, async () => {
    while (next < items.length) await task(items[next++]);
  });
  await Promise.all(workers);
}

/**
 * What an answer says about its write: `ok` (2xx: written), `maybe` (503 "may have been saved",
 * or no answer at all: written or not, the client cannot tell), `tryAgain` (503 "unavailable,
 * try again": nothing may have been written), or `other` (any other status).
 */
function writeOutcome(res) {
  if (res.error) return 'maybe';
  if (res.status >= 200 && res.status < 300) return 'ok';
  if (res.status === 503 && /may have been saved/.test(res.text)) return 'maybe';
  if (res.status === 503) return 'tryAgain';
  return 'other';
}

module.exports = { HOST, send, raw, pool, writeOutcome };
