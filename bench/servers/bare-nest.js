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
 * With BARE_NEST_RECORDS=1 as well (the "Nest floor" of the benchmark's "vs Nest floor" rows), it
 * also answers every route of bench/servers/baseline.js with the baseline's own code (`answer`: its SQL
 * through its pool, its row mapping, its JSON and XML), through that interceptor and Nest's reply;
 * its writes of marbles (POST, PATCH, adjust_price, DELETE) take the body Nest's parser read.
 * The service / baseline ratio of a route is then the product of floor / baseline, what the
 * framework costs whoever writes the rest, and service / floor, what the service's own code
 * costs (its middleware, validation, query building, rendering and access log).
 *
 * Plain JavaScript, no build: decorators are applied by calling them.
 *
 * Environment: PORT (default 3102), HOST (default 127.0.0.1), BARE_NEST_INTERCEPTOR,
 * BARE_NEST_RECORDS (then DATABASE_URL and PAGE_TOTAL_COUNT as for bench/servers/baseline.js).
 */
'use strict';

require('reflect-metadata');
const { Body, Controller, Delete, Get, Module, Patch, Post, Req, Res } = require('@nestjs/common');
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

/** The baseline's routes, answered by its own code (BARE_NEST_RECORDS=1). */
class RecordsController {
  constructor() {
    // Loaded only here: the baseline opens its pool on DATABASE_URL when it is loaded.
    this.baseline = require('./baseline');
  }

  async records(req, res) {
    return this.answered(res, await this.baseline.answer(req));
  }

  /** A write of marbles: the body as Nest's body parser read it. */
  async write(req, res, body) {
    return this.answered(res, await this.baseline.answer(req, body));
  }

  answered(res, { status, type, body, headers }) {
    res.status(status);
    res.setHeader('Vary', 'Accept');
    for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
    if (type === undefined) return undefined;
    res.setHeader('Content-Type', type);
    return body;
  }

  onApplicationShutdown() {
    return this.baseline.closePool();
  }
}
Reflect.decorate(
  [Get(['demo/*path', 'plain/*path'])],
  RecordsController.prototype,
  'records',
  Object.getOwnPropertyDescriptor(RecordsController.prototype, 'records'),
);
Req()(RecordsController.prototype, 'records', 0);
Res({ passthrough: true })(RecordsController.prototype, 'records', 1);
// One handler per method: Nest keeps one route per handler.
for (const [name, decorator] of [
  ['create', Post('demo/marbles')],
  ['update', Patch(['demo/marbles/:id', 'demo/marbles/:id/adjust_price'])],
  ['destroy', Delete('demo/marbles/:id')],
]) {
  // A function of its own: Nest keeps a route's path and method on the handler function.
  RecordsController.prototype[name] = function (req, res, body) {
    return this.write(req, res, body);
  };
  Reflect.decorate(
    [decorator],
    RecordsController.prototype,
    name,
    Object.getOwnPropertyDescriptor(RecordsController.prototype, name),
  );
  Req()(RecordsController.prototype, name, 0);
  Res({ passthrough: true })(RecordsController.prototype, name, 1);
  Body()(RecordsController.prototype, name, 2);
}
Controller('api')(RecordsController);

class PassThroughInterceptor {
  intercept(_context, next) {
    return next.handle();
  }
}

class AppModule {}
Module({
  controllers:
    process.env.BARE_NEST_RECORDS === '1' ? [PingController, RecordsController] : [PingController],
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
