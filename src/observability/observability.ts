/**
 * What watches the service, as configured: metrics (METRICS_ENABLED), OpenTelemetry traces
 * (OTEL_EXPORTER_OTLP_ENDPOINT) and SQL timings in the log (LOG_LEVEL=debug). Each is absent when
 * off, so the request path pays only for what is on.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { Logger } from 'pino';
import { AppConfig } from '../config/configuration';
import type { SqlObserver } from '../rest/db/sql-database';
import { Metrics } from './metrics';
import { openTelemetryTracer, Tracer } from './tracing';

export class Observability {
  readonly metrics?: Metrics;
  readonly tracer?: Tracer;
  /** Every statement goes past this, when anything watches statements. */
  readonly observeSql?: SqlObserver;

  constructor(config: AppConfig, logger: Logger) {
    if (config.metricsEnabled) this.metrics = new Metrics();
    if (config.otlpEndpoint) {
      this.tracer = openTelemetryTracer(config.otlpEndpoint, config.otelServiceName);
    }
    const observers: SqlObserver[] = [];
    if (this.metrics) observers.push(this.metrics.observeSql);
    if (this.tracer) observers.push(this.tracer.observeSql);
    if (logger.isLevelEnabled('debug')) observers.push(logTimings(logger));
    this.observeSql = combine(observers);
  }

  shutdown(): Promise<void> {
    return this.tracer?.shutdown() ?? Promise.resolve();
  }
}

/** One observer for several (none when empty, the one itself when alone). */
function combine(observers: SqlObserver[]): SqlObserver | undefined {
  if (observers.length <= 1) return observers[0];
  return (sql, kind, pool) => {
    const ends = observers.map((observe) => observe(sql, kind, pool));
    return (error) => {
      for (const end of ends) end(error);
    };
  };
}

/** LOG_LEVEL=debug: one line per statement with its time and SQL (never its parameters). */
function logTimings(logger: Logger): SqlObserver {
  return (sql, kind, pool) => {
    const started = performance.now();
    return (error) => {
      const ms = Math.round((performance.now() - started) * 100) / 100;
      logger.debug(
        { sql, duration_ms: ms, pool, kind, ...(error ? { error: String(error) } : {}) },
        `SQL ${ms} ms${error ? ' (failed)' : ''}`,
      );
    };
  };
}

/**
 * `GET /metrics`: the Prometheus text format. With a token, only for
 * `Authorization: Bearer <token>` (compared in constant time), else 401. `closed` (access control
 * is on) without a token: 401 to everyone, so turning on auth never leaves the metrics open.
 */
export function metricsHandler(metrics: Metrics, token: string | undefined, closed = false) {
  const expected = token ? createHash('sha256').update(token).digest() : undefined;
  return (req: Request, res: Response) => {
    if (!expected && closed) {
      res.status(401).set('WWW-Authenticate', 'Bearer realm="metrics"').json({
        message:
          'Metrics are closed while access control is on; set METRICS_TOKEN to scrape them with it.',
      });
      return;
    }
    if (expected) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      const given = createHash('sha256')
        .update(match?.[1] ?? '')
        .digest();
      if (!match || !timingSafeEqual(given, expected)) {
        res
          .status(401)
          .set(
            'WWW-Authenticate',
            `Bearer realm="metrics"${match ? ', error="invalid_token"' : ''}`,
          )
          .json({ message: 'Metrics need a valid bearer token (Authorization: Bearer <token>).' });
        return;
      }
    }
    metrics.scrape().then(
      ({ type, body }) => {
        // res.end rather than res.send, which would rewrite the content type's parameters.
        res.status(200).set({
          'Content-Type': type,
          'Content-Length': String(Buffer.byteLength(body)),
          'Cache-Control': 'no-store',
        });
        res.end(body);
      },
      (error: Error) => res.status(500).json({ message: `Metrics failed: ${error.message}` }),
    );
  };
}
