import { DataSource, DataSourceOptions } from 'typeorm';

const LOCK = 'records.schema';
const LOCK_WAIT_SECONDS = 120;

/**
 * Runs `work` while holding a MySQL named lock, so that replicas starting at the same moment
 * migrate (and load demo data) one after another, never together. SQLite needs no lock: one
 * process owns the file's writes at a time.
 */
export async function underSchemaLock<T>(
  dataSource: DataSource,
  work: () => Promise<T>,
): Promise<T> {
  if (dataSource.options.type !== 'mysql') return work();
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    const [{ acquired }] = await runner.query('SELECT GET_LOCK(?, ?) AS acquired', [
      LOCK,
      LOCK_WAIT_SECONDS,
    ]);
    if (Number(acquired) !== 1) {
      throw new Error(`Another instance held the schema lock for over ${LOCK_WAIT_SECONDS} s.`);
    }
    return await work();
  } finally {
    await runner.query('SELECT RELEASE_LOCK(?)', [LOCK]).catch(() => undefined);
    await runner.release();
  }
}

/** Connects and brings the schema up to date: what every process does before serving. */
export async function openDatabase(options: DataSourceOptions): Promise<DataSource> {
  const dataSource = await new DataSource(options).initialize();
  try {
    await underSchemaLock(dataSource, () => dataSource.runMigrations({ transaction: 'each' }));
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}
