/**
 * `npm run seed [-- --reset] [-- --marbles N]`: loads the demo data into the database that
 * DATABASE_URL names. Refuses to touch a database that has data unless --reset is given, which
 * deletes every row and sets the id counters back, so the ids are those of a fresh database.
 * A command of its own, like main.ts: it names the application's collections (their rows and
 * migrations); src/database does the work and knows none of them.
 */
import { parseArgs } from 'node:util';
import { migrationsOf } from './database/collection-folder';
import { COLLECTIONS } from './collections';
import { loadConfig } from './config/configuration';
import { dataSourceOptions } from './database/data-source-options';
import { DemoData } from './database/demo-data';
import { openDatabase } from './database/migrate';

const USAGE = `Usage: npm run seed -- [options]

Loads the demo data into the database the environment variable DATABASE_URL names (default
sqlite:data/records.sqlite), migrating it first. A database that has data is left alone
unless --reset is given.

Options:
  --reset        delete every row first and set the id counters back: the ids are those of a
                 fresh database (the next record created gets the same id as there)
  --marbles N    number of marbles, 0 to 50000000 (default 120); 1000000 for benchmarks
  -h, --help     print this help and exit
`;

async function main() {
  let values: { reset?: boolean; marbles?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        reset: { type: 'boolean', default: false },
        marbles: { type: 'string', default: '120' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new Error(`${(error as Error).message} (see npm run seed -- --help)`);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const marbles = Number(values.marbles);
  if (!Number.isInteger(marbles) || marbles < 0 || marbles > 50_000_000) {
    throw new Error(`--marbles must be a whole number up to 50000000, got "${values.marbles}"`);
  }
  const config = loadConfig();
  const dataSource = await openDatabase(
    dataSourceOptions(config.database, [], migrationsOf(COLLECTIONS)),
  );
  try {
    const demo = new DemoData(
      dataSource,
      COLLECTIONS.map((c) => c.demo),
    );
    if (!(await demo.isEmpty())) {
      if (!values.reset) {
        throw new Error('The database already has data; run with --reset to replace it.');
      }
      process.stderr.write('Deleting existing rows...\n');
      await demo.clear();
    }
    if (values.reset) await demo.resetIds();
    const started = Date.now();
    await demo.load({ sizes: { marbles }, progress: progressBar() });
    process.stderr.write(
      `\nDemo data loaded in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`,
    );
  } finally {
    await dataSource.destroy();
  }
}

function progressBar() {
  const tty = process.stderr.isTTY;
  let lastStep = -1;
  return (done: number, total: number) => {
    const fraction = total === 0 ? 1 : done / total;
    if (tty) {
      const width = 30;
      const filled = Math.round(fraction * width);
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${done}/${total} rows`,
      );
    } else {
      const step = Math.floor(fraction * 10);
      if (step !== lastStep) {
        lastStep = step;
        process.stderr.write(`${step * 10}% (${done}/${total} rows)\n`);
      }
    }
  };
}

main().catch((error: Error) => {
  process.stderr.write(`\nseed: ${error.message}\n`);
  process.exit(1);
});
