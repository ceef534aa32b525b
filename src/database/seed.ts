/**
 * `npm run seed [-- --reset] [-- --marbles N]`: loads the demo data into the database that
 * DATABASE_URL names. Refuses to touch a database that has data unless --reset is given.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/configuration';
import { dataSourceOptions } from './data-source-options';
import { DemoData } from './demo-data';
import { openDatabase } from './migrate';

async function main() {
  const { values } = parseArgs({
    options: {
      reset: { type: 'boolean', default: false },
      marbles: { type: 'string', default: '120' },
    },
  });
  const marbles = Number(values.marbles);
  if (!Number.isInteger(marbles) || marbles < 0 || marbles > 50_000_000) {
    throw new Error(`--marbles must be a whole number up to 50000000, got "${values.marbles}"`);
  }
  const config = loadConfig();
  const dataSource = await openDatabase(dataSourceOptions(config.database));
  try {
    const demo = new DemoData(dataSource);
    if (!(await demo.isEmpty())) {
      if (!values.reset) {
        throw new Error('The database already has data; run with --reset to replace it.');
      }
      process.stderr.write('Deleting existing rows...\n');
      await demo.clear();
    }
    const started = Date.now();
    await demo.load({ marbles, progress: progressBar() });
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
