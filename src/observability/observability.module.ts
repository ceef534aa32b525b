import {
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/configuration';
import { SQL_OBSERVER } from '../rest/sql/sql-database';
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

/** The `pool` label of a PoolCluster node. */
function poolName(id: string): string {
  return id === 'MASTER' ? 'primary' : id.replace(/^SLAVE/, 'replica').toLowerCase();
}

@Injectable()
class ObservabilityHooks implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly observability: Observability,
    @Inject(DataSource) private readonly dataSource: DataSource,
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
      ? Object.entries(driver.poolCluster._nodes).map(([id, node]) => [poolName(id), node.pool])
      : [['primary', driver.pool]];
    for (const [name, pool] of pools) {
      const stats = mysql2PoolStats(pool);
      if (stats) metrics.addPool(name, stats);
    }
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
