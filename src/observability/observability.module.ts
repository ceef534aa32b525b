import {
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  OnApplicationBootstrap,
  Optional,
  OnApplicationShutdown,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/configuration';
import { SQL_OBSERVER, SqlDatabase } from '../rest/db/sql-database';
import { hidePassword } from '../rest/db/replicas';
import { PoolStats } from './metrics';
import { Observability } from './observability';
import { rootLogger } from './root-logger';

/** The part of a mysql2 pool read for its metrics (its own fields: mysql2 offers no API). */
interface Mysql2Pool {
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
}

/** A mysql2 pool's counts, or undefined when it is not one. */
export function mysql2PoolStats(pool: unknown): (() => PoolStats) | undefined {
  const p = pool as Mysql2Pool | undefined;
  if (!p?._allConnections || !p._freeConnections || !p._connectionQueue) return undefined;
  return () => {
    const idle = p._freeConnections!.length;
    return {
      inUse: p._allConnections!.length - idle,
      idle,
      waiting: p._connectionQueue!.length,
    };
  };
}

/**
 * The `pool` label of a PoolCluster node: with replicas, `primary` and `replica0`, …; on a
 * Galera cluster, the node's name (`node1`, … in the order of DATABASE_URL), found by its URL.
 */
function poolName(id: string, dataSource: DataSource, sql?: SqlDatabase): string {
  const cluster = sql?.clusterStatus?.();
  if (cluster) {
    const { replication } = dataSource.options as {
      replication: { master: { url: string }; slaves: { url: string }[] };
    };
    const url =
      id === 'MASTER' ? replication.master.url : replication.slaves[Number(id.slice(5))].url;
    const node = cluster.nodes.find((n) => n.url === hidePassword(url));
    if (node) return node.name;
  }
  return id === 'MASTER' ? 'primary' : id.replace(/^SLAVE/, 'replica').toLowerCase();
}

@Injectable()
class ObservabilityHooks implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly observability: Observability,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Optional() @Inject(SqlDatabase) private readonly sql?: SqlDatabase,
  ) {}

  /**
   * Reports the pools TypeORM opened (MySQL; SQLite has none): its one pool as `primary`, or,
   * with TypeORM's `replication` option (a mysql2 PoolCluster), MASTER as `primary` and SLAVE0,
   * SLAVE1, … as `replica0`, `replica1`, …
   */
  onApplicationBootstrap(): void {
    const metrics = this.observability.metrics;
    if (!metrics) return;
    const driver = this.dataSource.driver as {
      pool?: unknown;
      poolCluster?: { _nodes?: Record<string, { pool?: unknown }> };
    };
    const pools: [string, unknown][] = driver.poolCluster?._nodes
      ? Object.entries(driver.poolCluster._nodes).map(([id, node]) => [
          poolName(id, this.dataSource, this.sql),
          node.pool,
        ])
      : [['primary', driver.pool]];
    for (const [name, pool] of pools) {
      const stats = mysql2PoolStats(pool);
      if (stats) metrics.addPool(name, stats);
    }
    const sql = this.sql;
    if (sql?.clusterStatus?.()) metrics.addCluster(() => sql.clusterStatus!()!);
  }

  /** Exports the spans still buffered. */
  onApplicationShutdown(): Promise<void> {
    return this.observability.shutdown();
  }
}

/** Metrics, traces and SQL timings (see Observability), for injection and for configureApp. */
@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(config: AppConfig): DynamicModule {
    const observability = new Observability(config, rootLogger(config));
    const observer = observability.observeSql
      ? [{ provide: SQL_OBSERVER, useValue: observability.observeSql }]
      : [];
    return {
      module: ObservabilityModule,
      providers: [
        { provide: Observability, useValue: observability },
        ...observer,
        ObservabilityHooks,
      ],
      exports: [Observability, ...observer.map((o) => o.provide)],
    };
  }
}
