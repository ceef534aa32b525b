/**
 * A frozen database (SIGSTOP: the process holds its connections open and answers nothing, so its
 * own statement time limit cannot fire) makes requests fail, not hang: every database call has a
 * deadline the service enforces itself, QUERY_TIMEOUT_MS plus a second. A read from a frozen
 * replica is run again on the primary; with the primary frozen, reads and writes are 503 with
 * Retry-After. The connections that timed out are destroyed, and once the server resumes the
 * service answers again without a restart. The MariaDB servers are this suite's own
 * (scripts/mariadb-pair.js), stopped and resumed by their PIDs.
 *
 * Needs the MariaDB server binaries (mariadbd, mariadb-install-db); `npm test` runs this folder
 * only where they are installed.
 */
import { join } from 'node:path';
import { MariaDbServer, startPair } from '../../../scripts/mariadb-pair';
import { Answer, bearer, call, json } from '../support/answers';
import { cleanup, scratchDir, ServerProcess, startServer, waitFor } from '../support/process';

const QUERY_TIMEOUT_MS = 1000;
/** The service's deadline: the limit plus its margin. */
const DEADLINE_MS = QUERY_TIMEOUT_MS + 1000;
/** What an answer may take past the deadline on a loaded machine: a bound, not a speed. */
const SLACK_MS = 4000;
const TOKEN = 'frozen-suite-metrics-token';

const post = (url: string, key: string, body: unknown) =>
  call(url, json('POST', body, { 'Idempotency-Key': key }));

/** What the suite measured, printed at the end (docs/reliability.md's figures come from here). */
const figures: Record<string, unknown> = {};

describe('a frozen database (SIGSTOP): answers within the deadline, recovery without restart', () => {
  let primary: MariaDbServer;
  let replica: MariaDbServer;
  /** Reads from the replica. */
  let routed: ServerProcess;
  /** Everything on the primary. */
  let direct: ServerProcess;
  const frozen = new Set<MariaDbServer>();

  const freeze = (server: MariaDbServer) => {
    process.kill(server.pid!, 'SIGSTOP');
    frozen.add(server);
  };
  const thaw = (server: MariaDbServer) => {
    process.kill(server.pid!, 'SIGCONT');
    frozen.delete(server);
  };

  beforeAll(async () => {
    const root = scratchDir('records-frozen-');
    ({ primary, replica } = await startPair(join(root, 'db')));
    const env = {
      DATABASE_URL: primary.url(),
      DEMO_DATA: 'true',
      QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      LOG_LEVEL: 'info',
    };
    direct = await startServer(env);
    await direct.waitReady('/health/ready', 90_000);
    routed = await startServer({
      ...env,
      DATABASE_REPLICA_URLS: replica.url(),
      METRICS_TOKEN: TOKEN,
    });
    await routed.waitReady('/health/ready', 90_000);
  });

  afterAll(async () => {
    console.log(`frozen database figures: ${JSON.stringify(figures, null, 2)}`);
    for (const server of frozen) thaw(server);
    await Promise.all([primary?.stop(), replica?.stop()]);
    await cleanup();
  });

  /** Waits until `server` reports the replica in the rotation again. */
  const inRotation = (server: ServerProcess) =>
    waitFor(
      async () => {
        const res = await call(server.url('/health/ready'));
        const info = res.body.info as { replicas?: { in_rotation: number } } | undefined;
        return res.status === 200 && info?.replicas?.in_rotation === 1;
      },
      'replica back in the rotation',
      60_000,
      100,
    );

  it('should name the replicas in /health/ready only for the metrics token, their number to others', async () => {
    await inRotation(routed);
    const anyone = await call(routed.url('/health/ready'));
    expect(anyone.body.info).toEqual({
      database: { status: 'up' },
      replicas: { status: 'up', in_rotation: 1, servers: 1 },
    });
    const operator = await call(routed.url('/health/ready'), bearer(TOKEN));
    const replicas = (operator.body.info as { replicas: { servers: { url: string }[] } }).replicas;
    expect(replicas.servers.map((s) => s.url)).toEqual([
      replica.url().replace(/:[^:@/]*@/, ':***@'),
    ]);
    const wrong = await call(routed.url('/health/ready'), bearer('not-the-token'));
    expect(wrong.body.info).toEqual(anyone.body.info);
  });

  it('should answer reads with a frozen replica from the primary, while it is still frozen', async () => {
    await inRotation(routed);
    freeze(replica);
    // At once, before the replica's check takes it out: some of these go to it.
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call(routed.url(`/api/demo/marbles/${i + 1}`))),
    );
    expect(frozen.has(replica)).toBe(true);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const slowest = Math.max(...answers.map((a) => a.took));
    figures.frozenReplicaSlowestReadMs = slowest;
    expect(slowest).toBeLessThan(DEADLINE_MS + SLACK_MS);
    thaw(replica);
    await inRotation(routed);
    expect((await call(routed.url('/api/demo/marbles/1'))).status).toBe(200);
  });

  it('should answer reads and writes with a frozen primary with 503 and Retry-After, then recover', async () => {
    freeze(primary);
    const [read, write] = await Promise.all([
      call(direct.url('/api/demo/marbles/1')),
      post(direct.url('/api/demo/marbles'), 'frozen-write', { name: 'Frozen' }),
    ]);
    expect(frozen.has(primary)).toBe(true);
    for (const answer of [read, write]) {
      expect([answer.status, answer.retryAfter, answer.body]).toEqual([
        503,
        '5',
        { message: 'The database is unavailable; try again shortly.' },
      ]);
      expect(answer.took).toBeLessThan(DEADLINE_MS + SLACK_MS);
    }
    figures.frozenPrimaryReadMs = read.took;
    figures.frozenPrimaryWriteMs = write.took;
    // Again while frozen: the connections that timed out were destroyed, and new ones fail too.
    const again = await call(direct.url('/api/demo/marbles/2'));
    expect([again.status, again.took < DEADLINE_MS + SLACK_MS]).toEqual([503, true]);

    thaw(primary);
    // No restart: the pool opens fresh connections.
    await waitFor(
      async () => (await call(direct.url('/api/demo/marbles/1'))).status === 200,
      'reads after the primary resumed',
      30_000,
      100,
    );
    let retry: Answer;
    do retry = await post(direct.url('/api/demo/marbles'), 'frozen-write', { name: 'Frozen' });
    while (retry.status === 409);
    expect(retry.status).toBe(201);
    const list = await call(direct.url('/api/demo/marbles?name=Frozen'));
    expect((list.body.results as unknown[]).length).toBe(1);
  });
});
