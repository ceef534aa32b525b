/**
 * WEB_CONCURRENCY=2 while workers are killed with SIGKILL, again and again, under connection
 * churn: half of the clients open a new connection for every request, the other half send 20
 * requests on each keep-alive connection. Every request must end within BOUND_MS, answered or
 * with its connection closed: none may wait in silence (with node:cluster's round-robin
 * distribution, a connection handed to a worker that dies with it in flight was never closed).
 * Kills and restarts are awaited through the log (a worker is killed only once it listens, and
 * the next kill waits for its replacement), never through sleeps.
 */
import { Agent, request } from 'node:http';
import { ServerProcess, sqliteUrl, startServer, waitFor } from '../support/process';

const START = 60_000;
/** How long a request may go with neither an answer nor a close. */
const BOUND_MS = 10_000;
const KILLS = 10;
const CLIENTS = 16;
/** Requests answered between two kills, so that each kill lands under load. */
const BETWEEN_KILLS = 150;

type Outcome =
  | { kind: 'answered'; status: number }
  | { kind: 'closed'; error: string }
  | { kind: 'silent'; connection: 'new' | 'keep-alive'; at: number };

/** The workers the log shows: pids that said they listen, and pids the primary saw exit. */
class Workers {
  private read = 0;
  readonly listening: number[] = [];
  readonly exited = new Set<number>();
  readonly killed = new Set<number>();

  constructor(private readonly server: ServerProcess) {}

  /** Reads the log lines written since the last call (only the new ones: thousands accrue). */
  update(): void {
    const lines = this.server.stdout;
    for (; this.read < lines.length; this.read++) {
      const line = lines[this.read];
      if (line.includes('"context":"Bootstrap"')) {
        this.listening.push((JSON.parse(line) as { pid: number }).pid);
      } else {
        const exit = /worker (\d+) exited \(SIGKILL\)/.exec(line);
        if (exit) this.exited.add(Number(exit[1]));
      }
    }
  }

  /** Workers that listen and were not killed (the primary's log of an exit may come later). */
  alive(): number[] {
    this.update();
    return this.listening.filter((pid) => !this.exited.has(pid) && !this.killed.has(pid));
  }

  kill(pid: number): void {
    process.kill(pid, 'SIGKILL');
    this.killed.add(pid);
  }
}

/** How many times each value occurs. */
function count(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

describe('WEB_CONCURRENCY=2 with workers killed under connection churn', () => {
  let server: ServerProcess;
  let workers: Workers;

  beforeAll(async () => {
    server = await startServer({ DATABASE_URL: sqliteUrl(), WEB_CONCURRENCY: '2' });
    workers = new Workers(server);
    await waitFor(() => workers.alive().length === 2, 'two workers listening', START);
  }, START * 2);

  afterAll(() => server.child.kill('SIGKILL'));

  it('should answer or close every connection, none left in silence', async () => {
    const outcomes: Outcome[] = [];
    const started = Date.now();
    /** Milliseconds since the churn began, to place a silent request among the kills. */
    const at = () => Date.now() - started;
    const answered = () => outcomes.filter((o) => o.kind === 'answered').length;
    let churning = true;

    const send = (agent: Agent | false): Promise<Outcome> =>
      new Promise((resolve) => {
        let settled = false;
        const settle = (outcome: Outcome) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(outcome);
        };
        const timer = setTimeout(() => {
          settle({ kind: 'silent', connection: agent ? 'keep-alive' : 'new', at: at() });
          req.destroy();
        }, BOUND_MS);
        const req = request(server.url('/health/live'), { agent }, (res) => {
          res.on('data', () => undefined);
          res.on('end', () => settle({ kind: 'answered', status: res.statusCode! }));
          res.on('error', (error) => settle({ kind: 'closed', error: error.message }));
          res.on('aborted', () => settle({ kind: 'closed', error: 'aborted' }));
        });
        req.on('error', (error) => settle({ kind: 'closed', error: error.message }));
        req.end();
      });

    const client = async (keepAlive: boolean) => {
      while (churning) {
        // agent false: a connection of its own, closed after the answer.
        const agent = keepAlive ? new Agent({ keepAlive: true, maxSockets: 1 }) : false;
        for (let i = 0; i < (keepAlive ? 20 : 1) && churning; i++) outcomes.push(await send(agent));
        if (agent) agent.destroy();
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, i) => client(i % 2 === 0));

    const kills: number[] = [];
    try {
      for (let k = 0; k < KILLS; k++) {
        // The replacement of the last one listens, and the load is on.
        await waitFor(() => workers.alive().length === 2, `two workers before kill ${k}`, START);
        const before = answered();
        await waitFor(() => answered() >= before + BETWEEN_KILLS, `load before kill ${k}`, START);
        const alive = workers.alive().sort((a, b) => a - b);
        const victim = alive[k % alive.length];
        workers.kill(victim);
        kills.push(at());
      }
      await waitFor(() => workers.alive().length === 2, 'two workers after the kills', START);
      const before = answered();
      await waitFor(() => answered() >= before + BETWEEN_KILLS, 'load after the kills', START);
    } finally {
      churning = false;
      // Every request ends within BOUND_MS: answered, closed or counted silent.
      await Promise.all(clients);
    }

    const tally = {
      requests: outcomes.length,
      answered: answered(),
      closed: outcomes.filter((o) => o.kind === 'closed').length,
      closedBy: count(outcomes.flatMap((o) => (o.kind === 'closed' ? [o.error] : []))),
      silent: outcomes.filter((o) => o.kind === 'silent'),
      kills,
    };
    console.log(`${KILLS} SIGKILLs of workers under churn: ${JSON.stringify(tally)}`);
    expect(tally.silent).toEqual([]);
    // One worker listened throughout: no connection was refused.
    expect(Object.keys(tally.closedBy).filter((e) => e.includes('ECONNREFUSED'))).toEqual([]);
    // The primary saw each killed worker die, and replaced it.
    await waitFor(
      () => [...workers.killed].every((pid) => workers.exited.has(pid)),
      'the primary logging every kill',
    );
    const statuses = new Set(outcomes.flatMap((o) => (o.kind === 'answered' ? [o.status] : [])));
    expect([...statuses]).toEqual([200]);
    // The service still serves, from two workers.
    const res = await fetch(server.url('/health/live'));
    expect(res.status).toBe(200);
    expect(workers.alive()).toHaveLength(2);
  }, 600_000);
});
