#!/usr/bin/env node
/**
 * Reference for the "vs Nest floor" rows of `npm run bench`: the hand-written baseline's own work
 * (bench/baseline.js's `answer`: its SQL through its pool, its row mapping, its JSON and XML)
 * served by a Nest 11 + Express 5 application with one pass-through global interceptor, the
 * shape the service is built in (controllers, and a global interceptor for the envelope and XML).
 * Nothing of the service runs in it.
 *
 * The service / baseline ratio is then the product of two: floor / baseline, what the framework
 * costs on that route whoever writes the rest, and service / floor, what the service's own code
 * costs (its middleware, validation, query building, rendering and access log).
 *
 * Plain JavaScript, no build: decorators are applied by calling them.
 *
 * Environment: DATABASE_URL (as bench/baseline.js), PORT (default 3107), HOST (default 127.0.0.1),
 * PAGE_TOTAL_COUNT (as bench/baseline.js).
 */
'use strict';

require('reflect-metadata');
const { Controller, Get, Module, Req, Res } = require('@nestjs/common');
const { APP_INTERCEPTOR, NestFactory } = require('@nestjs/core');
const { answer, closePool } = require('./baseline');

const PORT = Number(process.env.PORT || 3107);
const HOST = process.env.HOST || '127.0.0.1';

class RecordsController {
  /** Every route of the baseline; the result goes through the interceptor and Nest's reply. */
  async records(req, res) {
    const { status, type, body } = await answer(req);
    res.status(status);
    res.setHeader('Vary', 'Accept');
    res.setHeader('Content-Type', type);
    return body;
  }
}
const method = Object.getOwnPropertyDescriptor(RecordsController.prototype, 'records');
Reflect.decorate(
  [Get(['demo/*path', 'plain/*path'])],
  RecordsController.prototype,
  'records',
  method,
);
Req()(RecordsController.prototype, 'records', 0);
Res({ passthrough: true })(RecordsController.prototype, 'records', 1);
Controller('api')(RecordsController);

class PassThroughInterceptor {
  intercept(_context, next) {
    return next.handle();
  }
}

class AppModule {}
Module({
  controllers: [RecordsController],
  providers: [{ provide: APP_INTERCEPTOR, useClass: PassThroughInterceptor }],
})(AppModule);

async function main() {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  await app.listen(PORT, HOST);
  console.log(`Nest floor listening on http://${HOST}:${PORT}`);
  const shutdown = () => {
    app
      .close()
      .then(closePool)
      .finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((error) => {
  console.error(`nest-floor: ${error.stack || error.message}`);
  process.exit(1);
});
