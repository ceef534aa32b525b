#!/usr/bin/env node
/**
 * Reference for the `ping` scenario of `npm run bench`: a bare Nest 11 + Express 5 application
 * (the framework the service is built on, with its defaults, and nothing of the service's own)
 * answering `GET /api/demo/emails/ping` with `{"message":"pong"}`, the service's body and
 * content type. The ratio of the service to it is what the service's own middleware, interceptor
 * and rendering cost on a request that does no database work.
 *
 * With BARE_NEST_INTERCEPTOR=1 the app has one global interceptor that hands the handler's result
 * on untouched (`next.handle()`): the least any application whose responses go through a Nest
 * interceptor pays, as this service's do (its envelope and XML are a global interceptor). The
 * benchmark runs it as a second ping reference, to show that floor beside the bare app.
 *
 * Plain JavaScript, no build: decorators are applied by calling them.
 *
 * Environment: PORT (default 3102), HOST (default 127.0.0.1), BARE_NEST_INTERCEPTOR.
 */
'use strict';

require('reflect-metadata');
const { Controller, Get, Module } = require('@nestjs/common');
const { APP_INTERCEPTOR, NestFactory } = require('@nestjs/core');

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

class PassThroughInterceptor {
  intercept(_context, next) {
    return next.handle();
  }
}

class AppModule {}
Module({
  controllers: [PingController],
  providers:
    process.env.BARE_NEST_INTERCEPTOR === '1'
      ? [{ provide: APP_INTERCEPTOR, useClass: PassThroughInterceptor }]
      : [],
})(AppModule);

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
