#!/usr/bin/env node
/**
 * Reference for the `ping` scenario of `npm run bench`: a bare Nest 11 + Express 5 application
 * (the framework the service is built on, with its defaults, and nothing of the service's own)
 * answering `GET /api/demo/emails/ping` with `{"message":"pong"}`, the service's body and
 * content type. The ratio of the service to it is what the service's own middleware, interceptor
 * and rendering cost on a request that does no database work.
 *
 * Plain JavaScript, no build: decorators are applied by calling them.
 *
 * Environment: PORT (default 3102), HOST (default 127.0.0.1).
 */
'use strict';

require('reflect-metadata');
const { Controller, Get, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');

const PORT = Number(process.env.PORT || 3102);
const HOST = process.env.HOST || '127.0.0.1';

class PingController {
  ping() {
    return { message: 'pong' };
  }
}
Reflect.decorate(
  [Get('ping')],
  PingController.prototype,
  'ping',
  Object.getOwnPropertyDescriptor(PingController.prototype, 'ping'),
);
Controller('api/demo/emails')(PingController);

class AppModule {}
Module({ controllers: [PingController] })(AppModule);

async function main() {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.listen(PORT, HOST);
  console.log(`bare Nest listening on http://${HOST}:${PORT}`);
}

main().catch((error) => {
  console.error(`bare-nest: ${error.stack || error.message}`);
  process.exit(1);
});
