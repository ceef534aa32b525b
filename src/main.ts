import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { ConfigError, loadConfig } from './config/configuration';
import { APP_OPTIONS, configureApp } from './setup';

async function bootstrap() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.register(config),
    APP_OPTIONS,
  );
  configureApp(app);
  await app.listen(config.port);
  const where = config.database.type === 'sqlite' ? config.database.path : config.database.database;
  new Logger('Bootstrap').log(
    `Listening on http://localhost:${config.port} (${config.database.type}: ${where})`,
  );
}

void bootstrap();
