import cluster, { Worker } from 'node:cluster';
import { Logger } from 'pino';

/**
 * The primary process of `WEB_CONCURRENCY` workers (node:cluster), which share the port: the
 * primary opens the listening socket and every worker accepts from it (SCHED_NONE), so the
 * primary never holds a connection on a worker's behalf (see docs/operations.md, "Workers"). The
 * first worker starts alone, so migrations and the demo data run once, and the others start once
 * it listens. A worker that fails before it listens stops the service (exit 1); one that dies
 * later is replaced. SIGTERM and SIGINT are passed to every worker, each drains its requests as a
 * single process would, and the primary exits when all have: 0 if all exited 0, else 1.
 */
export function supervise(workers: number, logger: Logger): void {
  let stopping = false;
  let failed = false;
  const listening = new WeakSet<Worker>();
  // Round-robin (node:cluster's default) has the primary accept each connection and pass it to a
  // worker; one passed to a worker that dies before taking it is never closed by the primary
  // (Node 20 and 26 alike), and its client waits in silence. Set before the first fork, which
  // freezes it; NODE_CLUSTER_SCHED_POLICY is overridden.
  cluster.schedulingPolicy = cluster.SCHED_NONE;

  const start = () => {
    const worker = cluster.fork();
    worker.once('listening', () => listening.add(worker));
    return worker;
  };

  start().once('listening', () => {
    for (let i = 1; i < workers; i++) start();
  });

  cluster.on('exit', (worker, code, signal) => {
    if (code !== 0) failed = true;
    if (!stopping && !listening.has(worker)) {
      logger.fatal(`worker ${worker.process.pid} failed to start (${signal ?? code}); stopping`);
      stop('SIGTERM');
    } else if (!stopping) {
      logger.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
      start();
    }
    if (stopping && Object.keys(cluster.workers ?? {}).length === 0) {
      logger.flush();
      process.exit(failed ? 1 : 0);
    }
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: stopping ${workers} workers`);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
