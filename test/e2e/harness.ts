/**
 * Boots the real application (AppModule, the same HTTP setup as main.ts) against the database
 * the test runner chose: TEST_DATABASE=sqlite (a fresh file per suite) or TEST_DATABASE=mysql
 * (TEST_MYSQL_URL, emptied before each suite). Demo data is off; suites insert their own rows.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import {
  AppConfig,
  DatabaseConfig,
  loadConfig,
  parseDatabaseUrl,
} from '../../src/config/configuration';
import { DemoData } from '../../src/database/demo-data';
import { APP_OPTIONS, configureApp } from '../../src/setup';

export type Row = Record<string, unknown>;

export interface TestApp {
  app: NestExpressApplication;
  http: () => ReturnType<typeof request>;
  dataSource: DataSource;
  dialect: 'sqlite' | 'mysql';
  /** Deletes every row of every table. */
  reset(): Promise<void>;
  /** Inserts rows as given (column names, explicit ids). */
  insert(table: string, rows: Row[]): Promise<void>;
  /** Rows of a table, ordered by id (or by every column for join tables). */
  rows(table: string, orderBy?: string): Promise<Row[]>;
  close(): Promise<void>;
}

export function testDatabase(): DatabaseConfig {
  const kind = process.env.TEST_DATABASE ?? 'sqlite';
  if (kind === 'mysql') {
    const parsed = parseDatabaseUrl(
      process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/records_test',
    );
    if (typeof parsed === 'string') throw new Error(`TEST_MYSQL_URL ${parsed}`);
    return parsed;
  }
  return { type: 'sqlite', path: join(mkdtempSync(join(tmpdir(), 'records-e2e-')), 'test.sqlite') };
}

export async function startApp(overrides: Partial<AppConfig> = {}): Promise<TestApp> {
  const config: AppConfig = {
    ...loadConfig({}),
    database: testDatabase(),
    demoData: false,
    logLevel: 'silent',
    ...overrides,
  };
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.register(config)],
  }).compile();
  const app = configureApp(
    moduleRef.createNestApplication<NestExpressApplication>({
      ...APP_OPTIONS,
      bufferLogs: false,
      logger: ['error', 'warn'],
    }),
  );
  await app.init();
  const dataSource = app.get(DataSource);
  const q = (name: string) => dataSource.driver.escape(name);
  const testApp: TestApp = {
    app,
    http: () => request(app.getHttpServer()),
    dataSource,
    dialect: config.database.type,
    reset: () => new DemoData(dataSource).clear(),
    async insert(table, rows) {
      for (const row of rows) {
        const columns = Object.keys(row);
        await dataSource.query(
          `INSERT INTO ${q(table)} (${columns.map(q).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
          columns.map((c) => (typeof row[c] === 'boolean' ? (row[c] ? 1 : 0) : row[c])),
        );
      }
    },
    async rows(table, orderBy = 'id') {
      return dataSource.query(
        `SELECT * FROM ${q(table)} ORDER BY ${orderBy.split(',').map(q).join(', ')}`,
      );
    },
    close: () => app.close(),
  };
  await testApp.reset();
  return testApp;
}
