import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule, COLLECTION_NAMES } from './app.module';
import { supervise } from './cluster';
import { AppConfig, ConfigError, loadConfig } from './config/configuration';
import { rootLogger } from './logging';
import { APP_OPTIONS, configureApp } from './setup';

async function bootstrap() {
  let config: AppConfig;
  try {
    if (existsSync('.env')) process.loadEnvFile('.env');
    config = loadConfig(process.env, COLLECTION_NAMES);
  } catch (error) {
    // One line naming the problem; a stack trace would bury it.
    console.error(
      error instanceof ConfigError ? error.message : `Cannot read .env: ${String(error)}`,
    );
    process.exit(1);
  }
  if (config.webConcurrency > 1 && cluster.isPrimary) {
    supervise(config.webConcurrency, rootLogger(config));
    return;
  }
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.register(config),
    APP_OPTIONS,
  );
  const logger = app.get(Logger);
  app.useLogger(logger);
  configureApp(app);
  stopGracefully(app, config.shutdownTimeout, logger);
  await app.listen(config.port);
  const where = config.database.type === 'sqlite' ? config.database.path : config.database.database;
  logger.log(
    `Listening on http://localhost:${config.port} (${config.database.type}: ${where})`,
    'Bootstrap',
  );
}

/**
 * On SIGTERM or SIGINT: stop accepting connections, let in-flight requests finish, close the
 * pool, exit 0; exit 1 if that takes longer than `timeout` seconds.
 */
function stopGracefully(app: NestExpressApplication, timeout: number, logger: Logger) {
  let stopping = false;
  const stop = (signal: string) => {
    // A worker of a cluster started from a terminal gets ^C twice: from it and from the primary.
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: finishing in-flight requests`, 'Shutdown');
    setTimeout(() => {
      logger.error(`still busy after ${timeout} s; exiting`, undefined, 'Shutdown');
      process.exit(1);
    }, timeout * 1000).unref();
    app.close().then(
      () => process.exit(0),
      (error: Error) => {
        logger.error(error.message, error.stack, 'Shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void bootstrap();
