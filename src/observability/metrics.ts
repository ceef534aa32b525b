/**
 * Prometheus metrics (prom-client's registry and text format): requests by method, route
 * template and status, requests in flight, database pools and statement durations, and the
 * process metrics of `collectDefaultMetrics`.
 *
 * prom-client's own Counter and Histogram hash their label values into a key on every
 * observation. Here a request finds its series through two Map lookups keyed by the Express
 * route object (one per route template), the method and the status, and the series is created
 * once, with its labels, the first time that combination is seen. The request and query series
 * are therefore small metric objects of this file that prom-client's registry formats like its
 * own; the gauges are prom-client's, read only when /metrics is scraped.
 */
import type { Request } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ClusterStatus, SqlObserver, StatementKind } from '../rest/db/sql-database';

/** The `route` label of a request that matched no route (404, or answered before routing). */
export const UNMATCHED_ROUTE = '(unmatched)';

const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

type Labels = Record<string, string>;

/** One label set of a histogram: its count, sum and (non-cumulative) bucket counts. */
class Series {
  count = 0;
  sum = 0;
  readonly buckets: number[];

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = bounds.map(() => 0);
  }

  observe(seconds: number): void {
    this.count++;
    this.sum += seconds;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]) {
        this.buckets[i]++;
        return;
      }
    }
  }
}

/** The value lines prom-client's registry formats (the shape its own metrics return). */
interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** A histogram whose series are created by the caller, once, and kept by it. */
class SeriesHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all: Series[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  series(labels: Labels): Series {
    const series = new Series(labels, this.bounds);
    this.all.push(series);
    return series;
  }

  get() {
    const values: MetricValue[] = [];
    for (const series of this.all) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += series.buckets[i];
        values.push({
          labels: { ...series.labels, le },
          value: cumulative,
          metricName: `${this.name}_bucket`,
        });
      });
      values.push(
        {
          labels: { ...series.labels, le: '+Inf' },
          value: series.count,
          metricName: `${this.name}_bucket`,
        },
        { labels: series.labels, value: series.sum, metricName: `${this.name}_sum` },
        { labels: series.labels, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    };
  }

  /** The count of each series as a counter of its own (`http_requests_total`). */
  counter(name: string, help: string) {
    return {
      name,
      help,
      type: 'counter',
      aggregator: 'sum',
      get: () => ({
        name,
        help,
        type: 'counter',
        aggregator: 'sum',
        values: this.all.map((s) => ({ labels: s.labels, value: s.count })),
      }),
      reset: () => undefined,
    };
  }

  reset(): void {
    for (const series of this.all) {
      series.count = 0;
      series.sum = 0;
      series.buckets.fill(0);
    }
  }
}

/** The counts of a connection pool at one moment. */
export interface PoolStats {
  inUse: number;
  idle: number;
  waiting: number;
}

/** Series by method, then by status. */
type ByMethod = Map<string, Map<number, Series>>;

export class Metrics {
  readonly registry = new Registry();
  /** Requests being answered now. */
  inFlight = 0;
  private readonly requests = new SeriesHistogram(
    'http_request_duration_seconds',
    'Time from the request to the end of the response, by method, route template and status.',
    REQUEST_BUCKETS,
  );
  private readonly queries = new SeriesHistogram(
    'db_query_duration_seconds',
    'Time of one SQL statement, by pool and kind (read: outside a transaction; write: inside one).',
    QUERY_BUCKETS,
  );
  private readonly byRoute = new WeakMap<object, ByMethod>();
  /** Requests without an Express route, by the prefix of the middleware that answered, if any. */
  private readonly byMount = new Map<string, ByMethod>();
  private readonly queriesByPool = new Map<string, Record<StatementKind, Series>>();
  private readonly pools = new Map<string, () => PoolStats>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.registry.registerMetric(this.requests as never);
    this.registry.registerMetric(
      this.requests.counter(
        'http_requests_total',
        'Requests answered, by method, route template and status.',
      ) as never,
    );
    this.registry.registerMetric(this.queries as never);
    const inFlight = () => this.inFlight;
    const pools = this.pools;
    new Gauge({
      name: 'http_requests_in_flight',
      help: 'Requests received and not yet answered.',
      registers: [this.registry],
      collect() {
        this.set(inFlight());
      },
    });
    const poolGauge = (name: string, help: string, read: (stats: PoolStats) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['pool'],
        registers: [this.registry],
        collect() {
          for (const [pool, stats] of pools) this.set({ pool }, read(stats()));
        },
      });
    poolGauge('db_pool_connections_in_use', 'Connections lent out by the pool.', (s) => s.inUse);
    poolGauge('db_pool_connections_idle', 'Open connections waiting in the pool.', (s) => s.idle);
    poolGauge(
      'db_pool_waiting_requests',
      'Statements waiting for a connection of the pool.',
      (s) => s.waiting,
    );
  }

  /** A connection pool to report under `pool="<name>"` (`primary`; replicas by their names). */
  addPool(name: string, stats: () => PoolStats): void {
    this.pools.set(name, stats);
  }

  /**
   * A Galera cluster (rest/db/galera.ts), read when scraped: `db_cluster_failovers_total`, the
   * times writes moved away from each node, `db_cluster_conflict_retries_total`, the transactions
   * each refused for a conflict and that were run again, `db_cluster_keyed_reruns_total`, the keyed
   * writes whose COMMIT it left unanswered that were run again on the next writer, and
   * `db_cluster_writer`, 1 for the node writes go through now.
   */
  addCluster(status: () => ClusterStatus): void {
    new Counter({
      name: 'db_cluster_failovers_total',
      help: 'Times writes moved away from a node of the cluster (it failed, or a node before it in the list came back).',
      labelNames: ['node'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const node of status().nodes) this.inc({ node: node.name }, node.failovers);
      },
    });
    new Counter({
      name: 'db_cluster_conflict_retries_total',
      help: 'Transactions a node of the cluster refused for a conflict (deadlock, failed certification) that were run again.',
      labelNames: ['node'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const node of status().nodes) this.inc({ node: node.name }, node.conflict_retries);
      },
    });
    new Counter({
      name: 'db_cluster_keyed_reruns_total',
      help: 'Keyed writes whose COMMIT got no answer from a node of the cluster, run again on the next writer (their Idempotency-Key makes it safe).',
      labelNames: ['node'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const node of status().nodes) this.inc({ node: node.name }, node.keyed_reruns);
      },
    });
    new Gauge({
      name: 'db_cluster_writer',
      help: 'Whether writes go through this node of the cluster now (1) or not (0).',
      labelNames: ['node'],
      registers: [this.registry],
      collect() {
        for (const node of status().nodes) this.set({ node: node.name }, node.writer ? 1 : 0);
      },
    });
  }

  /**
   * Webhooks (src/webhooks): `webhook_attempts_total` by outcome (delivered, failed, given_up,
   * disabled, skipped) and `webhook_delivery_lag_seconds`, from a write to its delivery, counted
   * by the instance that made them; read when scraped, `webhook_subscriptions` by status (every
   * instance tells the same) and `webhook_subscription_lag_seconds`, how long the event a
   * subscription this instance delivers now has waited (0 when it is caught up).
   */
  addWebhooks(source: { counts(): Promise<Record<string, number>>; lags(): [number, number][] }): {
    attempted(outcome: string): void;
    delivered(lagMs: number): void;
  } {
    const attempts = new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts made by this instance, by outcome.',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    const lag = new Histogram({
      name: 'webhook_delivery_lag_seconds',
      help: 'Time from a write to the delivery of its event to a subscription (a 2xx).',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
      registers: [this.registry],
    });
    new Gauge({
      name: 'webhook_subscriptions',
      help: 'Webhook subscriptions, by status (active, disabled).',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        for (const [status, n] of Object.entries(await source.counts())) this.set({ status }, n);
      },
    });
    new Gauge({
      name: 'webhook_subscription_lag_seconds',
      help: 'How long the next event of each subscription this instance delivers has waited (0: caught up).',
      labelNames: ['subscription'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [id, seconds] of source.lags()) this.set({ subscription: String(id) }, seconds);
      },
    });
    // A child per outcome, found once: no label hashing per attempt.
    const byOutcome = new Map<string, { inc(): void }>();
    return {
      attempted: (outcome) => {
        let child = byOutcome.get(outcome);
        if (!child) byOutcome.set(outcome, (child = attempts.labels(outcome)));
        child.inc();
      },
      delivered: (ms) => lag.observe(ms / 1000),
    };
  }

  /** Counts a finished request: `route` is the Express route object when one matched. */
  requestEnded(req: Request, status: number, seconds: number): void {
    const route = req.route as { path?: unknown } | undefined;
    let byMethod: ByMethod | undefined;
    let template: string;
    if (route) {
      byMethod = this.byRoute.get(route);
      if (!byMethod) this.byRoute.set(route, (byMethod = new Map()));
      template = String(route.path);
    } else {
      // Static files under a mount point (the docs), or no route at all: a fixed label.
      template = req.baseUrl ? `${req.baseUrl}/*` : UNMATCHED_ROUTE;
      byMethod = this.byMount.get(template);
      if (!byMethod) this.byMount.set(template, (byMethod = new Map()));
    }
    let byStatus = byMethod.get(req.method);
    if (!byStatus) byMethod.set(req.method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      series = this.requests.series({
        method: req.method,
        route: template,
        status: String(status),
      });
      byStatus.set(status, series);
    }
    series.observe(seconds);
  }

  /** Times every statement into `db_query_duration_seconds`. */
  readonly observeSql: SqlObserver = (_sql, kind, pool) => {
    let series = this.queriesByPool.get(pool);
    if (!series) {
      series = {
        read: this.queries.series({ pool, kind: 'read' }),
        write: this.queries.series({ pool, kind: 'write' }),
      };
      this.queriesByPool.set(pool, series);
    }
    const one = series[kind];
    const started = performance.now();
    return () => one.observe((performance.now() - started) / 1000);
  };

  /** The text format, and its content type. */
  async scrape(): Promise<{ type: string; body: string }> {
    return { type: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The route template of a request, as its metrics and span name it. */
export function routeTemplate(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  if (route) return String(route.path);
  return req.baseUrl ? `${req.baseUrl}/*` : UNMATCHED_ROUTE;
}
