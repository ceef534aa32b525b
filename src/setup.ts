import { Logger, NestApplicationOptions } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import compression from 'compression';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { APP_COLLECTIONS, Collection, describeCollections } from './database/collection-folder';
import { APP_CONFIG } from './config/config.module';
import { AppConfig } from './config/configuration';
import { accessLog, resumeSpan } from './logging';
import { FEED_MIDDLEWARE, FeedMiddleware } from './events/events.module';
import { metricsHandler, Observability } from './observability/observability';
import { ApiDocs } from './rest/http/openapi/api-docs';
import { answerExpectContinue, bodyParsers } from './rest/http/request/body';
import { RefusalPace } from './rest/http/request/refusal-pace';
import { weakETagsOnSuccessfulReads } from './rest/http/response/etag';
import { serveAssets } from './rest/http/browsable/html-assets';
import { BrowsablePages } from './rest/http/browsable/html-page';
import { negotiateFormat } from './rest/http/request/format';
import { checkHost } from './rest/http/request/public-origin';
import { checkPercentEncoding } from './rest/http/request/percent-encoding';
import { readRequestTarget, takeOriginForm } from './rest/http/request/request-target';
import { readYourWrites } from './rest/http/request/read-your-writes';
import { refuseUnservedWrites } from './rest/http/request/unserved-writes';
import { chain, Pipeline, pipelineMiddleware } from './rest/http/request/pipeline';
import { AccessControl } from './rest/http/auth/access-control';
import { describeAccess } from './rest/http/auth/openapi-security';
import { RateLimiter } from './rest/http/rate-limit/rate-limiter';
import { describeWebhooks } from './webhooks/webhook-openapi';

/** The version of package.json (beside src/ and dist/ alike): the document's `info.version`. */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;

/**
 * On every answer, `X-Content-Type-Options: nosniff` (a browser never runs an answer as another
 * type); on every write, `Cache-Control: no-store` (errors get it where they are sent); on the
 * documentation page, no framing by another site (clickjacking). Two header writes a request:
 * lighter than a general-purpose middleware's dozen, on the hot path.
 */
function securityHeaders(req: Request, res: Response, next: NextFunction) {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
    res.setHeader('Cache-Control', 'no-store');
  } else if (req.path.startsWith('/api/docs')) {
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
  }
  next();
}

/** Each configured app's request pipeline: which middleware runs for what (tests, benchmark). */
const pipelines = new WeakMap<NestExpressApplication, Pipeline & { head: RequestHandler[] }>();

/** The request pipeline `configureApp` built for `app`. */
export function pipelineOf(app: NestExpressApplication) {
  return pipelines.get(app);
}

/**
 * The benchmark's switch (`node bench/run.js --layers`, docs/benchmark.md): BENCH_LAYERS_OFF
 * names middlewares to leave out of the pipeline (security-headers, access-log, request-target,
 * assets, host, percent-encoding, compression), so that the CPU a request costs with and without
 * each, on the same build, says what each costs. Read once at start: no request pays for it. Not
 * for a deployment: what it leaves out is part of the service's interface.
 */
function benchLayersOff(): Set<string> {
  return new Set((process.env.BENCH_LAYERS_OFF ?? '').split(',').filter(Boolean));
}

/** Options for creating the application: bodies are parsed by `bodyParsers`, not Nest's parser. */
export const APP_OPTIONS: NestApplicationOptions = { bodyParser: false, bufferLogs: true };

/** HTTP settings shared by the server and the e2e tests, so tests run the app as it ships. */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get<AppConfig>(APP_CONFIG);
  app.disable('x-powered-by');
  weakETagsOnSuccessfulReads(app.getHttpAdapter().getInstance() as Express);
  app.set('query parser', 'simple');
  app.set('trust proxy', config.trustProxy);
  const observability = app.get(Observability);
  const access = app.get<AccessControl | null>(AccessControl);
  const limiter = app.get<RateLimiter | null>(RateLimiter);
  const negotiate = negotiateFormat({ browsable: config.browsableApi });
  // Before anything reads the path or Host: an absolute-form request line becomes origin-form,
  // its authority the Host (on the server, before Express: takeOriginForm says why); another
  // request target, or two Host headers, is 400.
  takeOriginForm(app.getHttpServer());
  // `Expect: 100-continue` with a body over the limit: no `100 Continue`, a 413 before the body.
  answerExpectContinue(app.getHttpServer());
  // The request pipeline, built once: each capability's middleware is in it only when the
  // capability is on (pipeline.ts). Mounted in three Express layers at most: the head, the
  // metrics route (before format negotiation), then the rest.
  const off = benchLayersOff();
  const layer = (name: string, handler: RequestHandler) => (off.has(name) ? [] : [handler]);
  const head: RequestHandler[] = [
    ...layer('security-headers', securityHeaders),
    ...layer('access-log', accessLog(config, observability)),
    ...layer('request-target', readRequestTarget(negotiate)),
  ];
  app.use(chain(head));
  // Before format negotiation: always the Prometheus text format, whatever Accept says. Closed
  // (401 to all) while any access control is on and no METRICS_TOKEN opens it.
  if (observability.metrics) {
    const express = app.getHttpAdapter().getInstance() as Express;
    express.get(
      '/metrics',
      metricsHandler(observability.metrics, config.metricsToken, access !== null),
    );
  }
  const compress = compression({ threshold: 1024 });
  const all: RequestHandler[] = [
    // The browsable API's script, stylesheet and icon, under content-hashed names.
    ...(config.browsableApi ? layer('assets', serveAssets) : []),
    negotiate,
    // Before anything builds a link: the origin of links, or 400 for a host not allowed.
    ...layer('host', checkHost(config)),
    // Before routing: a path or query that is not percent-encoded UTF-8.
    ...layer('percent-encoding', checkPercentEncoding),
    // Most API clients ask for no encoding: they skip the compression wrapper altogether.
    ...layer('compression', (req: Request, res: Response, next: NextFunction) =>
      req.headers['accept-encoding'] ? compress(req, res, next) : next(),
    ),
  ];
  if (config.corsOrigins.length > 0) {
    app.use(chain(all.splice(0)));
    app.enableCors({
      // Any origin: `*` itself, never the request's Origin echoed (not even "null", the origin
      // of sandboxed frames and files), and never with credentials.
      origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
      credentials: false,
      exposedHeaders: [
        'Location',
        'X-Request-Id',
        'ETag',
        'Retry-After',
        'traceparent',
        'tracestate',
        'Idempotent-Replayed',
        // Where to go next: a change feed's 409 or 410 names where to start again (rel=first),
        // a CSV page its next page.
        'Link',
        // The rate limit's quota and what is left of it (draft-ietf-httpapi-ratelimit-headers).
        'RateLimit',
        'RateLimit-Policy',
      ],
    });
  }
  // Who the request is from, its count, then what it may do: all before its body is read.
  if (access) all.push(access.identify(limiter !== null));
  if (limiter) all.push(limiter.middleware());
  if (access) all.push(access.enforce());
  // After the body (a write's) is read: the request's span, then where its reads go.
  const context: RequestHandler[] = [];
  if (observability.tracer) context.push(resumeSpan(observability.tracer));
  // With read replicas: a client's reads go to the primary just after its writes. On a Galera
  // cluster, the same with the writer (a node may apply a write a moment after another).
  const cluster = config.database.type === 'mysql' && config.database.nodes !== undefined;
  if (config.replicas.urls.length > 0 || cluster) {
    context.push(readYourWrites(config.replicas.readAfterWrite));
  }
  // The change feed's: the request at hand for the events of its writes, the pages' live notice.
  const feed = app.get<FeedMiddleware>(FEED_MIDDLEWARE);
  const pipeline: Pipeline = {
    all,
    reads: context,
    pages: feed.pages,
    writes: [
      refuseUnservedWrites,
      bodyParsers(new RefusalPace(config.refusedBodyRate)),
      ...context,
      ...feed.writes,
    ],
  };
  app.use(pipelineMiddleware(pipeline));
  pipelines.set(app, { head, ...pipeline });

  const collections = app.get<readonly Collection[]>(APP_COLLECTIONS);
  const document = app.get(ApiDocs).build({
    title: 'Record collections',
    description:
      `${describeCollections(collections)} Every route ` +
      'answers in JSON or XML (a `.json` / `.xml` suffix, `?format=`, or `Accept`) and takes JSON ' +
      'or XML bodies. A path answers a method it does not list with 405 and `Allow`.' +
      (access
        ? ` ${access.rules.readsRequired ? 'Reads and writes' : 'Writes'} need ` +
          '`Authorization: Bearer <token>` (Authorize)' +
          (access.verifier ? ': a JWT with the scopes each operation lists.' : '.')
        : ''),
    version: PACKAGE_VERSION,
    order: collections.map((c) => c.declaration.plural),
  });
  if (config.events.enabled) describeWebhooks(document);
  describeAccess(document, {
    rules: access?.rules,
    apiToken: config.apiToken !== undefined,
    jwt: access?.verifier !== undefined,
    issuer: config.auth.issuer,
    rateLimited: limiter !== null,
  });
  // The keys ahead of the first token; a failure is logged and tried again when a token comes.
  access?.verifier
    ?.warmUp()
    .catch((error: Error) =>
      new Logger('Access').warn(`the issuer's keys cannot be fetched yet: ${error.message}`),
    );
  new BrowsablePages(
    document,
    access !== null,
    collections.map((c) => c.declaration),
  ).installOn(app.getHttpAdapter().getInstance() as Express);
  // Swagger UI from the swagger-ui-dist package, served by this process: no CDN.
  SwaggerModule.setup('api/docs', app, document, {
    jsonDocumentUrl: 'api/openapi.json',
    swaggerOptions: { persistAuthorization: true },
  });
  return app;
}
