/**
 * Section 5 of the reliability probe (bench/probe/probe.js): lock wait timeouts and killed queries.
 * The probe's mariadbd runs with a short innodb_lock_wait_timeout. While writers change marbles
 * (with and without an Idempotency-Key: PATCH, toggle_is_discounted, adjust_price, and a bulk
 * PATCH that sets an owner), other sessions hold row locks the writes wait for: marbles' rows
 * (the writes' first statement), owners' rows (the bulk PATCH's second UPDATE, after its first
 * one ran) and the rows of the keys writers are about to use (a keyed write's last statement,
 * after its UPDATE ran). A killer sends KILL QUERY to the service's statements that wait, in
 * phases, so that some waits end in a lock wait timeout (1205) and others killed (1317).
 * Afterwards the pool is reused by many writes, and the books are checked:
 *
 * - a marble's version grew by exactly the number of 2xx updates it got, give or take the
 *   answers that cannot know ("may have been saved", no answer): more is a write answered "try
 *   again" that was written, or half-committed (leftovers of a failed transaction committed by
 *   the next one on its connection); less is a 2xx that is not in the table;
 * - a keyed request, retried with its key until it is answered 2xx, is written at most once;
 * - no transaction of the service's user is left open (information_schema.innodb_trx).
 */
'use strict';

const { send, pool, writeOutcome } = require('./probe-http');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pick = (list) => list[Math.floor(Math.random() * list.length)];

/** Owners a bulk PATCH sets in turn (demo users); other sessions lock their rows. */
const OWNERS = [99, 100];
/** Marbles of each kind of writer. */
const MARBLES = 4;
/** How long a keyed request is retried with its key after an answer that is not 2xx. */
const KEYED_RETRY_MS = 30_000;
/** A statement of the service waiting this long is a candidate for KILL QUERY. */
const WAITING_MS = 300;

/** The request of operation `kind` on marbles `ids`, the i-th of its client. */
function operation(kind, ids, i) {
  const [a, b] = ids;
  switch (kind) {
    case 'PATCH':
      return { method: 'PATCH', path: `/${a}`, body: { radius_mm: 1 + (i % 50) }, touched: [a] };
    case 'toggle':
      return { method: 'PATCH', path: `/${a}/toggle_is_discounted`, touched: [a] };
    case 'adjust_price':
      return {
        method: 'PATCH',
        path: `/${a}/adjust_price`,
        body: { price: `${1 + (i % 90)}.25` },
        touched: [a],
      };
    default:
      // Bulk: the rows are locked together first, then updated one by one; the second UPDATE
      // checks the owner's row (foreign key), which another session may hold.
      return {
        method: 'PATCH',
        path: '',
        body: [
          { id: a, radius_mm: 1 + (i % 50) },
          { id: b, user_id: OWNERS[i % OWNERS.length] },
        ],
        touched: [a, b],
      };
  }
}

const KINDS = ['PATCH', 'toggle', 'adjust_price', 'bulk'];

/** What a statement is, for the kill counts. */
function statementKind(info) {
  if (/^INSERT INTO `idempotency_keys`/.test(info)) return "INSERT of the key's row";
  if (/FOR UPDATE/.test(info)) return 'SELECT … FOR UPDATE';
  if (/^UPDATE `marbles`/.test(info)) return 'UPDATE marbles';
  return info.slice(0, 40);
}

/** Counts of `patterns` in the service's log lines (whole lines only), as its output arrives. */
function logCounter(child, patterns) {
  const counts = Object.fromEntries(Object.keys(patterns).map((k) => [k, 0]));
  const streams = [child.proc.stdout, child.proc.stderr];
  const listeners = streams.map((stream) => {
    let carry = '';
    const scan = (chunk) => {
      const text = carry + chunk.toString('utf8');
      const end = text.lastIndexOf('\n') + 1;
      carry = text.slice(end).slice(-4000);
      const lines = text.slice(0, end);
      for (const [name, pattern] of Object.entries(patterns)) {
        counts[name] += (lines.match(pattern) ?? []).length;
      }
    };
    stream.on('data', scan);
    return scan;
  });
  return { counts, stop: () => streams.forEach((s, i) => s.off('data', listeners[i])) };
}

/**
 * Runs the section: `seconds` of writes under held locks and kills, then `reuse` writes. `db` is
 * the probe's server (root through its socket), `dbName` and `dbUser` the service's database
 * and user, `service` its child process (for its log).
 */
async function lockChaos(port, db, { dbName, dbUser, auth, seconds, reuse, service }) {
  const log = logCounter(service, {
    lockWaitTimeouts: /Lock wait timeout exceeded/g,
    interrupted: /Query execution was interrupted/g,
  });
  const base = '/api/demo/marbles';
  const make = async (name) => {
    const res = await send(port, 'POST', base, { headers: auth, body: { name, radius_mm: 5 } });
    if (res.status !== 201) throw new Error(`lock setup: ${res.status} ${res.text}`);
    return res.json.id;
  };
  const unkeyed = [];
  const keyed = [];
  for (let i = 0; i < MARBLES; i++) unkeyed.push(await make(`probe-lock-u-${i}`));
  for (let i = 0; i < MARBLES; i++) keyed.push(await make(`probe-lock-k-${i}`));
  const all = [...unkeyed, ...keyed];
  const versions = async () =>
    new Map(
      (await db.query(`SELECT id, version FROM \`${dbName}\`.marbles WHERE id IN (?)`, [all])).map(
        (r) => [Number(r.id), Number(r.version)],
      ),
    );
  const before = await versions();

  // The books: per marble, 2xx updates and updates that may have been written.
  const books = new Map(all.map((id) => [id, { ok: 0, maybe: 0 }]));
  const answers = { ok: 0, maybe: 0, tryAgain: 0, other: 0 };
  const keyedStats = { requests: 0, retried: 0, unsettled: 0, replayedAfterTryAgain: 0 };
  const otherStatuses = {};
  const nextKey = []; // per keyed client, the index of its request under way
  let running = true;

  const write = async (request, key) => {
    const headers = key ? { ...auth, 'Idempotency-Key': key } : auth;
    const res = await send(port, request.method, `${base}${request.path}`, {
      headers,
      body: request.body,
    });
    const outcome = writeOutcome(res);
    answers[outcome]++;
    if (outcome === 'other') {
      otherStatuses[res.status] = (otherStatuses[res.status] ?? 0) + 1;
      if (res.status !== 409) console.log(`  unexpected ${res.status}: ${res.text.slice(0, 200)}`);
    }
    return { res, outcome };
  };

  const settle = (request, outcomes) => {
    const last = outcomes[outcomes.length - 1];
    const field = last === 'ok' ? 'ok' : outcomes.includes('maybe') ? 'maybe' : undefined;
    if (field) for (const id of request.touched) books.get(id)[field]++;
  };

  async function writer(n, marbles, isKeyed) {
    for (let i = 0; running; i++) {
      const kind = pick(KINDS);
      const a = pick(marbles);
      const request = operation(kind, [a, pick(marbles.filter((m) => m !== a))], i);
      if (!isKeyed) {
        settle(request, [(await write(request)).outcome]);
        continue;
      }
      nextKey[n] = i;
      const key = `probe-lk-${n}-${i}`;
      keyedStats.requests++;
      const outcomes = [];
      let answer = await write(request, key);
      outcomes.push(answer.outcome);
      const until = Date.now() + KEYED_RETRY_MS;
      if (answer.outcome !== 'ok') keyedStats.retried++;
      while (
        answer.outcome !== 'ok' &&
        (answer.outcome !== 'other' || answer.res.status === 409) &&
        Date.now() < until
      ) {
        await sleep(300);
        answer = await write(request, key);
        outcomes.push(answer.outcome);
      }
      if (answer.outcome !== 'ok') keyedStats.unsettled++;
      // A replay after nothing but "try again" answers: one of them had been written.
      const replayed = answer.res.headers?.['idempotent-replayed'] === 'true';
      if (replayed && outcomes.slice(0, -1).every((o) => o === 'tryAgain')) {
        keyedStats.replayedAfterTryAgain++;
      }
      settle(request, outcomes);
    }
  }

  // Other sessions holding locks: marbles' rows, owners' rows, and keys about to be used.
  const holds = { marbles: 0, owners: 0, keys: 0, failed: 0 };
  async function holder(j) {
    const connection = await db.connect();
    await connection.query(`USE \`${dbName}\``);
    try {
      while (running) {
        await connection.query('START TRANSACTION');
        try {
          const r = Math.random();
          if (r < 0.45) {
            const ids = [pick(all), pick(all)];
            await connection.query(
              'SELECT id FROM marbles WHERE id IN (?) FOR UPDATE SKIP LOCKED',
              [ids],
            );
            holds.marbles++;
          }
          if (r >= 0.3 && r < 0.7) {
            await connection.query('SELECT id FROM users WHERE id IN (?) FOR UPDATE SKIP LOCKED', [
              OWNERS,
            ]);
            holds.owners++;
          }
          if (r >= 0.55) {
            // Keyed writer j (of three): the key under way and the next two.
            const clients = nextKey.map((_, n) => n).filter((n) => n % 3 === j);
            const n = pick(clients);
            if (n !== undefined) {
              for (let i = nextKey[n]; i < nextKey[n] + 3; i++) {
                await connection.query(
                  'INSERT IGNORE INTO idempotency_keys (idempotency_key, fingerprint, claim, expires_at)' +
                    " VALUES (?, 'probe-holder', '', ?)",
                  [`probe-lk-${n}-${i}`, Date.now() + 86_400_000],
                );
              }
              holds.keys++;
            }
          }
          await sleep(1000 + Math.random() * 3000);
        } catch {
          holds.failed++;
        } finally {
          await connection.query('ROLLBACK');
        }
        await sleep(100 + Math.random() * 300);
      }
    } finally {
      await connection.end();
    }
  }

  // KILL QUERY of the service's waiting statements, 3 s on, then 5 s off (waits end in 1205).
  const kills = {};
  let killed = 0;
  async function killer() {
    const started = Date.now();
    while (running) {
      const on = (Date.now() - started) % 8000 < 3000;
      if (on) {
        const waiting = await db.query(
          'SELECT id, info FROM information_schema.processlist' +
            " WHERE user = ? AND command = 'Query' AND time_ms > ? AND info IS NOT NULL",
          [dbUser, WAITING_MS],
        );
        for (const { id, info } of waiting) {
          try {
            await db.query(`KILL QUERY ${Number(id)}`);
            killed++;
            const kind = statementKind(info);
            kills[kind] = (kills[kind] ?? 0) + 1;
          } catch {
            // ended meanwhile
          }
        }
      }
      await sleep(150);
    }
  }

  const writers = [
    ...[0, 1, 2].map((n) => writer(n, unkeyed, false)),
    ...[0, 1, 2].map((n) => writer(n, keyed, true)),
  ];
  const chaos = [holder(0), holder(1), holder(2), killer()];
  await sleep(seconds * 1000);
  running = false;
  await Promise.all([...writers, ...chaos]);

  const openTransactions = async () => {
    const [row] = await db.query(
      'SELECT COUNT(*) AS n FROM information_schema.innodb_trx t' +
        ' JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id WHERE p.user = ?',
      [dbUser],
    );
    return Number(row.n);
  };
  const openAfterChaos = await openTransactions();

  // The pool reused: many writes, a few at a time, over every connection it holds.
  const reused = { ok: 0, notOk: 0 };
  const reuseItems = Array.from({ length: reuse }, (_, i) => i);
  await pool(reuseItems, 12, async (i) => {
    const request = operation(i % 2 ? 'PATCH' : 'toggle', [all[i % all.length]], i);
    const { outcome } = await write(request);
    settle(request, [outcome]);
    if (outcome === 'ok') reused.ok++;
    else reused.notOk++;
  });
  const openAfterReuse = await openTransactions();

  const after = await versions();
  const tally = (ids) => {
    let beyond = 0;
    let missing = 0;
    let uncertain = 0;
    for (const id of ids) {
      const { ok, maybe } = books.get(id);
      const grown = after.get(id) - before.get(id);
      beyond += Math.max(0, grown - ok - maybe);
      missing += Math.max(0, ok - grown);
      uncertain += Math.min(maybe, Math.max(0, grown - ok));
    }
    return { beyond, missing, uncertain };
  };
  const totalOk = [...books.values()].reduce((s, b) => s + b.ok, 0);
  log.stop();
  return {
    answers,
    otherStatuses,
    totalOk,
    keyed: keyedStats,
    holds,
    killed,
    kills,
    logged: log.counts,
    openAfterChaos,
    openAfterReuse,
    reused,
    reuse,
    unkeyedBooks: tally(unkeyed),
    keyedBooks: tally(keyed),
  };
}

/** The section's rows of the probe's table, through `check(what, figure, good)`. */
function lockRows(locks, check) {
  const { answers, keyed, unkeyedBooks: u, keyedBooks: k } = locks;
  const refused = Object.entries(locks.otherStatuses).filter(([status]) => status !== '409');
  check(
    'Locks: writes 2xx / "may have been saved" or no answer / 503 "try again" / other',
    `${answers.ok} / ${answers.maybe} / ${answers.tryAgain} / ${answers.other}`,
    answers.ok > 0 && refused.length === 0,
  );
  check(
    'Locks: lock wait timeouts / killed queries (logged) / KILL QUERY sent',
    `${locks.logged.lockWaitTimeouts} / ${locks.logged.interrupted} / ${locks.killed}`,
    locks.killed > 0,
  );
  check(
    'Locks: written beyond the 2xx (half-committed or "try again"): unkeyed / keyed',
    `${u.beyond} / ${k.beyond}`,
    u.beyond === 0 && k.beyond === 0,
  );
  check(
    'Locks: 2xx not in the table / "may have been saved" that were',
    `${u.missing + k.missing} / ${u.uncertain + k.uncertain}`,
    u.missing + k.missing === 0,
  );
  check(
    'Locks: keyed requests / retried with the key / never 2xx / replayed after "try again"',
    `${keyed.requests} / ${keyed.retried} / ${keyed.unsettled} / ${keyed.replayedAfterTryAgain}`,
    keyed.unsettled === 0 && keyed.replayedAfterTryAgain === 0,
  );
  check(
    'Locks: transactions of the service open: after the locks / after the pool reused',
    `${locks.openAfterChaos} / ${locks.openAfterReuse}`,
    locks.openAfterChaos === 0 && locks.openAfterReuse === 0,
  );
  check(
    `Locks: ${locks.reuse} writes through the pool afterwards: 2xx / not`,
    `${locks.reused.ok} / ${locks.reused.notOk}`,
    locks.reused.notOk === 0,
  );
}

module.exports = { lockChaos, lockRows };
