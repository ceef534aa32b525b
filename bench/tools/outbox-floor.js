#!/usr/bin/env node
/**
 * `node bench/tools/outbox-floor.js` (after `npm run build`): what the change feed's outbox costs a
 * write with no service around it, the floor under the `events / no events` rows of
 * bench/run.js. Ten connections of mysql2 alone run a create as the service sends it on one
 * MySQL server (START TRANSACTION, the marble's INSERT, its SELECT, COMMIT), in alternating
 * rounds: once as it is, once with the event's INSERT sent with the COMMIT (`INSERT INTO
 * record_event_outbox ...; COMMIT`, the record as JSON bytes, as src/events/change-recorder.ts
 * sends it) and, on an eleventh connection, the sequencer's batch every 50 ms (the statements of
 * src/events/sequencer.ts: the sequencer row locked, the outbox's events read, copied into the
 * feed with their positions and deleted from the outbox, `last_position` stored). Nothing else:
 * no HTTP, no Nest, no rendering.
 *
 * It prints, for each side, transactions a second, the database server's CPU time per
 * transaction (mariadbd's, from /proc: the server must run on this machine) and this process's,
 * and their ratios. The ratio of transactions is the best the service's `events / no events` rows
 * could show on this machine: the service adds its own work to both sides, and the outbox's work
 * on the service's side (reading the request's context, the event's JSON) only to one.
 *
 * Environment: BENCH_MYSQL_URL as for bench/run.js (the database is seeded afresh: its rows are
 * replaced); FLOOR_ROUNDS (6) rounds per side of FLOOR_SECONDS (5) s each, after a 2 s warm-up;
 * FLOOR_GAP_MS (50), the least time between two batches; FLOOR_SEQUENCER=off, no batches at all
 * (the events stay in the outbox): the INSERT's share of the cost apart from the positioning's.
 */
'use strict';

const lib = require('../lib');

const MARBLES = 10_000;
const CONNECTIONS = 10;
const WARM_UP_MS = 2000;
/** src/events/sequencer.ts's SEQUENCE_BATCH. */
const BATCH = 500;

const MARBLE_COLUMNS =
  'id, name, radius_mm, price, is_discounted, created_at, updated_at, user_id, description, picture, version';
const EVENT_COLUMNS = 'collection, action, record_id, record, etag, at, request_id, actor';
const EVENT_INSERT = `INSERT INTO record_event_outbox (${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?); COMMIT`;

/** The run's settings, from the environment (header), each checked. */
function settings() {
  const sequencer = (process.env.FLOOR_SEQUENCER || 'on').toLowerCase();
  if (!['on', 'off'].includes(sequencer)) {
    throw lib.fail(`FLOOR_SEQUENCER must be on or off, got "${process.env.FLOOR_SEQUENCER}"`);
  }
  return {
    rounds: lib.positiveInt('FLOOR_ROUNDS', 6, 100),
    seconds: lib.positiveInt('FLOOR_SECONDS', 5, 600),
    /** The sequencer's least gap between two batches under load (src/events/events.module.ts). */
    gapMs: lib.positiveInt('FLOOR_GAP_MS', 50, 10_000),
    /** Off: the event's INSERT alone, nothing positioned (what the batches cost). */
    sequencer: sequencer === 'on',
  };
}

/** One create, as the service sends it on one server; `withEvent`: the outbox's INSERT too. */
async function create(connection, name, withEvent) {
  await connection.query('START TRANSACTION');
  const [inserted] = await connection.query(
    'INSERT INTO marbles (name, radius_mm, price, is_discounted, created_at, updated_at, description)' +
      ' VALUES (?, ?, ?, ?, NOW(3), NOW(3), ?)',
    [name, 12, '3.50', 0, 'A marble of the outbox floor'],
  );
  const [[record]] = await connection.query(
    `SELECT ${MARBLE_COLUMNS} FROM marbles WHERE id IN (?)`,
    [inserted.insertId],
  );
  if (!withEvent) {
    await connection.query('COMMIT');
    return;
  }
  await connection.query(EVENT_INSERT, [
    'marbles',
    'created',
    record.id,
    Buffer.from(JSON.stringify(record), 'utf8'),
    `"${record.id}.${record.version}"`,
    Date.now(),
    '00000000-0000-4000-8000-000000000000',
    null,
  ]);
}

/**
 * One batch of the sequencer, in its own transaction: the events committed meanwhile move from
 * the outbox into the feed with their positions.
 */
async function position(connection) {
  await connection.query('START TRANSACTION');
  try {
    const [[row]] = await connection.query(
      "SELECT last_position AS head FROM record_event_sequencer WHERE name = 'events' FOR UPDATE",
    );
    const [waiting] = await connection.query(
      `SELECT id FROM record_event_outbox ORDER BY id LIMIT ${BATCH}`,
    );
    const head = Number(row.head);
    if (waiting.length > 0) {
      const ids = waiting.map((r) => r.id);
      const list = ids.map(() => '?').join(', ');
      await connection.query(
        `INSERT INTO record_events (position, outbox_id, ${EVENT_COLUMNS})` +
          ` SELECT CASE id ${ids.map(() => 'WHEN ? THEN ?').join(' ')} END, id, ${EVENT_COLUMNS}` +
          ` FROM record_event_outbox WHERE id IN (${list})`,
        [...ids.flatMap((id, i) => [id, head + i + 1]), ...ids],
      );
      await connection.query(`DELETE FROM record_event_outbox WHERE id IN (${list})`, ids);
      await connection.query(
        "UPDATE record_event_sequencer SET last_position = ? WHERE name = 'events'",
        [head + ids.length],
      );
    }
    await connection.query('COMMIT');
  } catch (error) {
    await connection.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** `ms` of creates on every connection (and batches, with events); the transactions done. */
async function load(connections, sequencer, { withEvent, options }, ms, tag) {
  let stop = false;
  let done = 0;
  const writers = connections.map(async (connection, c) => {
    for (let i = 0; !stop; i++) {
      await create(connection, `floor-${tag}-${c}-${i}`, withEvent);
      done++;
    }
  });
  const positioning =
    withEvent && options.sequencer
      ? (async () => {
          while (!stop) {
            const started = Date.now();
            await position(sequencer);
            await lib.sleep(Math.max(0, options.gapMs - (Date.now() - started)));
          }
          await position(sequencer);
        })()
      : Promise.resolve();
  await lib.sleep(ms);
  stop = true;
  await Promise.all([...writers, positioning]);
  return done;
}

async function main() {
  const options = settings();
  const db = lib.databaseSettings();
  console.log(`Database ${lib.redact(db.mysqlUrl)}: seeding ${MARBLES} marbles...`);
  await lib.seed(db, MARBLES);
  const open = () => lib.connect(db, true, { multipleStatements: true });
  const connections = await Promise.all(Array.from({ length: CONNECTIONS }, open));
  const sequencer = await open();
  const pid = await lib.databasePid(db);
  if (pid === undefined) {
    throw lib.fail(
      "cannot read the database server's pid file (@@pid_file): " +
        'the floor needs the server on this machine, readable by this user',
    );
  }
  const sides = [
    { label: 'no outbox', withEvent: false, options, rounds: [] },
    { label: 'outbox', withEvent: true, options, rounds: [] },
  ];
  let runs = 0;
  try {
    for (const side of sides) await load(connections, sequencer, side, WARM_UP_MS, ++runs);
    const { rounds, seconds } = options;
    console.log(`Measuring: ${rounds} rounds per side of ${seconds} s, ${CONNECTIONS} connections`);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        await lib.quiesce(db, 10_000);
        const server = lib.cpuMs(pid);
        const own = process.cpuUsage();
        const started = Date.now();
        const done = await load(connections, sequencer, side, seconds * 1000, ++runs);
        const elapsed = (Date.now() - started) / 1000;
        const ownUs = process.cpuUsage(own);
        side.rounds.push({
          perSecond: done / elapsed,
          serverUs: ((lib.cpuMs(pid) - server) * 1000) / done,
          clientUs: (ownUs.user + ownUs.system) / done,
        });
      }
    }
  } finally {
    await Promise.all([...connections, sequencer].map((c) => c.end().catch(() => undefined)));
  }
  const mean = (side, key) => side.rounds.reduce((sum, r) => sum + r[key], 0) / side.rounds.length;
  const [plain, outbox] = sides;
  const cells = (key, digits) => [
    mean(outbox, key).toFixed(digits),
    mean(plain, key).toFixed(digits),
    (mean(outbox, key) / mean(plain, key)).toFixed(2),
  ];
  console.log(
    '\n' +
      lib.table(
        [
          `create as the service sends it${options.sequencer ? `, batches every ${options.gapMs} ms` : ', no batches'}`,
          'outbox',
          'no outbox',
          'ratio',
        ],
        [
          ['transactions/s', ...cells('perSecond', 0)],
          ['database CPU µs per transaction', ...cells('serverUs', 1)],
          ['client CPU µs per transaction', ...cells('clientUs', 1)],
        ],
      ),
  );
  const spread = (side) =>
    side.rounds.map((r) => r.perSecond.toFixed(0)).join(' / ') + ' transactions/s';
  console.log(`\nRounds: outbox ${spread(outbox)}; no outbox ${spread(plain)}`);
}

lib.runMain('outbox-floor', main);
