import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule, COLLECTION_NAMES } from './app.module';
import { supervise } from './cluster';
import { AppConfig, ConfigError, loadConfig } from './config/configuration';
import { rootLogger } from './logging';
import { limitSlowClients, stopGracefully } from './server';
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
  limitSlowClients(app.getHttpServer(), config);
  stopGracefully(app, config.shutdownTimeout, logger);
  await app.listen(config.port);
  const where = config.database.type === 'sqlite' ? config.database.path : config.database.database;
  logger.log(
    `Listening on http://localhost:${config.port} (${config.database.type}: ${where})`,
    'Bootstrap',
  );
}

void bootstrap();
