import './declaration-errors';
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import pino, { DestinationStream } from 'pino';
import { AppModule, COLLECTION_NAMES } from './app.module';
import { supervise } from './cluster';
import { AppConfig, ConfigError, loadConfig } from './config/configuration';
import { describeDatabase } from './config/database-url';
import { DatabaseStartError } from './database/connect';
import { NestPinoLogger, rootLogger } from './logging';
import { limitSlowClients, listenProblem, portProblem, stopGracefully } from './server';
import { APP_OPTIONS, configureApp } from './setup';

/**
 * Stops the start over a configuration that cannot be read: one fatal log line on stdout, as
 * every other start-up failure writes it. The configuration is what failed, so its format is
 * judged here: LOG_FORMAT when it says json or pretty, else pretty on a terminal (where
 * pino-pretty is installed) and JSON otherwise.
 */
function refuseToStart(message: string): never {
  const format = process.env.LOG_FORMAT;
  const pretty = format === 'pretty' || (format !== 'json' && process.stdout.isTTY === true);
  let prettyStream: DestinationStream | undefined;
  if (pretty) {
    try {
      prettyStream = (require('pino-pretty') as typeof import('pino-pretty')).PinoPretty({
        singleLine: true,
        sync: true,
        ignore: 'pid,hostname',
      });
    } catch {
      // A development dependency, absent from the image: JSON then.
    }
  }
  const log = pino({ level: 'fatal' }, prettyStream ?? pino.destination({ dest: 1, sync: true }));
  log.fatal(message);
  process.exit(1);
}

async function bootstrap() {
  let config: AppConfig;
  try {
    if (existsSync('.env')) process.loadEnvFile('.env');
    config = loadConfig(process.env, COLLECTION_NAMES, process.stdout.isTTY === true);
  } catch (error) {
    // One log line naming the problem; a stack trace would bury it.
    refuseToStart(
      error instanceof ConfigError ? error.message : `Cannot read .env: ${String(error)}`,
    );
  }
  // Every line through pino from the first: Nest's own (the route map at debug) included.
  const log = rootLogger(config);
  // Before anything is migrated or written (and before any worker starts): a port in use is one
  // line, not a stack trace after the demo data.
  const busy = cluster.isWorker ? undefined : await portProblem(config.port);
  if (busy) {
    log.fatal(busy);
    process.exit(1);
  }
  if (config.webConcurrency > 1 && cluster.isPrimary) {
    supervise(config.webConcurrency, log);
    return;
  }
  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(AppModule.register(config), {
      ...APP_OPTIONS,
      bufferLogs: false,
      abortOnError: false,
      logger: new NestPinoLogger(log),
    });
    configureApp(app);
    limitSlowClients(app.getHttpServer(), config);
    stopGracefully(app, config.shutdownTimeout, app.get(Logger));
    await app.listen(config.port);
  } catch (error) {
    // One line that says what stopped the start (a DatabaseStartError names DATABASE_URL).
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof DatabaseStartError) log.fatal(error.message);
    else if (code === 'EADDRINUSE' || code === 'EACCES')
      log.fatal(listenProblem(error as NodeJS.ErrnoException, config.port));
    else log.fatal({ err: error }, `Cannot start: ${(error as Error).message}`);
    process.exit(1);
  }
  const url = `http://localhost:${config.port}`;
  const database = describeDatabase(config.database);
  log.info(
    { context: 'Bootstrap', url, docs: `${url}/api/docs/`, database },
    `Listening on ${url} (API: ${url}/api/demo/, ${url}/api/plain/; docs: ${url}/api/docs/; database: ${database})`,
  );
}

void bootstrap();
