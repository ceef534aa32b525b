/**
 * Section 3 of the reliability probe (bench/probe/probe.js): token checks. Every write route and
 * method, with path variants and method spellings, without the token, with a wrong one, one a
 * character short and with `Bearer` misspelled; and reads that ask to be writes.
 */
'use strict';

const { raw, pool } = require('./probe-http');

const COLLECTIONS = [
  { path: '/api/demo/marbles', body: { name: 'probe-token-marble', radius_mm: 2 }, bulk: true },
  {
    path: '/api/demo/emails',
    body: { email: 'probe.token@example.com', is_primary: false, user_id: 1 },
    bulk: true,
  },
  { path: '/api/demo/phone_numbers', body: { number: '+1 555 0199', user_id: 1 }, bulk: true },
  { path: '/api/plain/movies', body: { name: 'Probe Token Movie' }, bulk: false },
];

/** Every write without a valid token, in every spelling the probe knows. */
function tokenAttempts(token) {
  const targets = [];
  for (const c of COLLECTIONS) {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const body = method === 'POST' ? c.body : method === 'DELETE' ? [1] : [{ id: 1, ...c.body }];
      targets.push({ method, path: c.path, body });
    }
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      targets.push({ method, path: `${c.path}/1`, body: method === 'DELETE' ? undefined : c.body });
    }
  }
  for (const action of ['adjust_price', 'toggle_is_discounted']) {
    for (const method of ['PATCH', 'POST', 'PUT']) {
      targets.push({ method, path: `/api/demo/marbles/1/${action}`, body: { price: '42.5' } });
    }
  }
  const variants = [
    (p) => p,
    (p) => `${p}.json`,
    (p) => `${p}.xml`,
    (p) => `${p}.html`,
    (p) => `${p}/`,
    (p) => p.replace('/api/', '//api/').replace(/\/(\d+)/, '//$1'),
    (p) => p.replace('/api/', '/%61pi/').replace(/\/demo\/m/, '/demo/%6D'),
    (p) => `${p}?format=json`,
    (p) => `${p}?format=xml`,
  ];
  const spellings = [(m) => m, (m) => m.toLowerCase(), (m) => m[0] + m.slice(1).toLowerCase()];
  const auths = [
    {},
    { Authorization: 'Bearer wrong-token' },
    { Authorization: `Bearer ${token.slice(0, -1)}` },
    { Authorization: `Baerer ${token}` },
    { Authorization: `Bearer${token}` },
    { Authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` },
  ];
  const attempts = [];
  for (const t of targets) {
    for (const variant of variants) {
      for (const spell of spellings) {
        for (const auth of auths) {
          attempts.push({
            method: spell(t.method),
            target: variant(t.path),
            headers: auth,
            body: t.body,
          });
        }
      }
    }
  }
  // A read that asks to be a write: a method override must not turn it into one.
  for (const c of COLLECTIONS) {
    for (const auth of auths) {
      attempts.push({ method: 'GET', target: `${c.path}/1?_method=DELETE`, headers: auth });
      attempts.push({
        method: 'POST',
        target: `${c.path}/1`,
        headers: { ...auth, 'X-HTTP-Method-Override': 'DELETE' },
      });
    }
  }
  return attempts;
}

/**
 * The change feed's lease row changes by itself (the instance renews it every few seconds): every
 * other table, `record_events` among them (no event without a write), must stay as it was.
 */
const CHANGES_BY_ITSELF = new Set(['record_event_sequencer']);

async function tableChecksums(db, database) {
  const tables = (await db.query(`SHOW TABLES FROM \`${database}\``))
    .map((r) => Object.values(r)[0])
    .filter((table) => !CHANGES_BY_ITSELF.has(table));
  const sums = await db.query(
    `CHECKSUM TABLE ${tables.map((t) => `\`${database}\`.\`${t}\``).join(', ')} EXTENDED`,
  );
  return new Map(sums.map((r) => [r.Table, String(r.Checksum)]));
}

/**
 * Section 3 of the probe: no write without the token may be answered 2xx or change a table of
 * `dbName` (CHECKSUM TABLE before and after).
 */
async function tokenChecks(port, db, { dbName, token }) {
  const before = await tableChecksums(db, dbName);
  const attempts = tokenAttempts(token);
  const statuses = {};
  let accepted = 0;
  await pool(attempts, 8, async (a) => {
    const status = await raw(port, a.method, a.target, a.headers, a.body);
    statuses[status] = (statuses[status] ?? 0) + 1;
    // A GET that asks to be a DELETE stays a read: its 200 is fine, the checksums tell.
    if (status >= 200 && status < 300 && a.method !== 'GET') {
      accepted++;
      console.log(
        `  ${status} without the token: ${a.method} ${a.target} ${JSON.stringify(a.headers)}`,
      );
    }
  });
  const after = await tableChecksums(db, dbName);
  const changed = [...before].filter(([t, sum]) => after.get(t) !== sum).map(([t]) => t);
  return { attempts: attempts.length, accepted, changed, statuses };
}

module.exports = { tokenChecks };
