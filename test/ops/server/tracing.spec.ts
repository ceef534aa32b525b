/**
 * Traces from the compiled server. With OTEL_EXPORTER_OTLP_ENDPOINT set, a span per request and a
 * child span per SQL statement reach an OTLP/HTTP receiver that this test runs (it decodes the
 * JSON export), in the caller's trace when the request carried `traceparent`; the access log line
 * carries the same trace id. Without it, the OpenTelemetry SDK is never loaded (the modules the
 * process required, listed by a --require probe at exit).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { accessLine, marbleCreatedBy } from './access-line';
import { auth, call, json } from '../support/answers';
import { scratchDir, ServerProcess, sqliteUrl, startServer, waitFor } from '../support/process';

/** A span as the OTLP JSON encoding has it (the fields used here). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
  status?: { code?: number };
}

interface Export {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** An OTLP/HTTP receiver on a free local port: it keeps every export posted to /v1/traces. */
class Receiver {
  readonly exports: Export[] = [];
  readonly contentTypes: string[] = [];
  private server?: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method === 'POST' && req.url === '/v1/traces') {
          this.contentTypes.push(String(req.headers['content-type']));
          this.exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Export);
          res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
        } else {
          res.writeHead(404).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  spans(): OtlpSpan[] {
    return this.exports.flatMap((e) =>
      e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
    );
  }

  serviceNames(): string[] {
    return this.exports.flatMap((e) =>
      e.resourceSpans.map(
        (r) => r.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '',
      ),
    );
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : undefined);
}

/** A --require probe: at exit, the loaded modules of interest go to `file` as JSON. */
function probe(): { file: string; nodeOptions: string } {
  const dir = scratchDir('records-ops-probe-');
  const file = join(dir, 'loaded.json');
  const script = join(dir, 'probe.js');
  writeFileSync(
    script,
    `process.on('exit', () => {
      const loaded = Object.keys(require.cache).filter((p) => /[\\\\/]node_modules[\\\\/](@opentelemetry[\\\\/][^\\\\/]+|prom-client)[\\\\/]/.test(p));
      const names = [...new Set(loaded.map((p) => /node_modules[\\\\/](@opentelemetry[\\\\/][^\\\\/]+|prom-client)/.exec(p)[1].replace(/\\\\/g, '/')))];
      require('node:fs').writeFileSync(${JSON.stringify(file)}, JSON.stringify(names.sort()));
    });\n`,
  );
  return { file, nodeOptions: `--require ${script}` };
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

/** The service's API_TOKEN in this suite: the writer of its write is `api-token`. */
const WRITER_TOKEN = 'tracing-writer-token-0123456789';

describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  const receiver = new Receiver();
  let server: ServerProcess;
  const loaded = probe();

  beforeAll(async () => {
    await receiver.start();
    server = await startServer({
      DATABASE_URL: sqliteUrl(),
      DEMO_DATA: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
      OTEL_SERVICE_NAME: 'records-under-test',
      NODE_OPTIONS: loaded.nodeOptions,
      API_TOKEN: WRITER_TOKEN,
    });
    await server.waitReady();
  });
  afterAll(() => receiver.stop());

  it("should export the request's span, in the caller's trace, with its statements as children", async () => {
    const res = await fetch(server.url('/api/demo/marbles/1'), {
      headers: { traceparent: `00-${TRACE}-${PARENT}-01`, 'X-Request-Id': 'traced-1' },
    });
    expect(res.status).toBe(200);
    const [, trace, spanId, flags] = /^00-(\w{32})-(\w{16})-(\w\w)$/.exec(
      res.headers.get('traceparent')!,
    )!;
    expect([trace, flags]).toEqual([TRACE, '01']);

    await waitFor(
      () => receiver.spans().some((s) => s.spanId === spanId),
      'the request span at the receiver',
      30_000,
    );
    const request = receiver.spans().find((s) => s.spanId === spanId)!;
    expect(request).toMatchObject({
      traceId: TRACE,
      parentSpanId: PARENT,
      name: 'GET /api/demo/marbles/:id',
      kind: 2, // SERVER
    });
    expect(attribute(request, 'http.route')).toBe('/api/demo/marbles/:id');
    expect(attribute(request, 'http.request.method')).toBe('GET');
    expect(attribute(request, 'http.response.status_code')).toBe(200);
    const statements = receiver.spans().filter((s) => s.parentSpanId === spanId);
    expect(statements.length).toBeGreaterThanOrEqual(1);
    for (const statement of statements) {
      expect(statement).toMatchObject({ traceId: TRACE, name: 'SELECT', kind: 3 }); // CLIENT
      expect(attribute(statement, 'db.query.text')).toMatch(/^SELECT .*FROM "marbles"/s);
    }
    expect(receiver.serviceNames()).toContain('records-under-test');
    expect(receiver.contentTypes[0]).toBe('application/json');

    // The access line of that request names the same trace.
    const line = await accessLine(server, 'traced-1');
    expect(line).toMatchObject({ trace_id: TRACE, span_id: spanId });
  });

  it('should start a trace of its own without traceparent, and trace the statements of a write', async () => {
    const res = await call(
      server.url('/api/demo/marbles'),
      json(
        'POST',
        { name: 'Traced Opal' },
        { ...auth(WRITER_TOKEN), 'X-Request-Id': 'traced-write' },
      ),
    );
    expect(res.status).toBe(201);
    const [, trace, spanId] = /^00-(\w{32})-(\w{16})-01$/.exec(res.headers.get('traceparent')!)!;
    expect(trace).not.toBe(TRACE);
    await waitFor(
      () => receiver.spans().some((s) => s.spanId === spanId),
      'the write span at the receiver',
      30_000,
    );
    const request = receiver.spans().find((s) => s.spanId === spanId)!;
    expect(request.name).toBe('POST /api/demo/marbles');
    expect(request.parentSpanId ?? '').toBe('');
    // The writer: in the span, and in the access line.
    expect(attribute(request, 'enduser.id')).toBe('api-token');
    const line = await accessLine(server, 'traced-write');
    expect(line.req).toEqual(marbleCreatedBy('traced-write', 'api-token'));
    // The body was read in stream events; the statements still belong to the request.
    const names = receiver
      .spans()
      .filter((s) => s.parentSpanId === spanId)
      .map((s) => s.name);
    expect(names).toContain('INSERT');
  });

  it('should send what is left on SIGTERM, and have loaded the SDK', async () => {
    const res = await fetch(server.url('/api/demo/emails/ping'));
    const spanId = /^00-\w{32}-(\w{16})-01$/.exec(res.headers.get('traceparent')!)![1];
    server.child.kill('SIGTERM');
    expect((await server.waitExit()).code).toBe(0);
    expect(receiver.spans().map((s) => s.spanId)).toContain(spanId);
    const modules = JSON.parse(readFileSync(loaded.file, 'utf8')) as string[];
    expect(modules).toEqual(
      expect.arrayContaining([
        '@opentelemetry/api',
        '@opentelemetry/exporter-trace-otlp-http',
        '@opentelemetry/sdk-trace',
        'prom-client',
      ]),
    );
  });
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('should not load the OpenTelemetry SDK at all, and still answer traceparent', async () => {
    const loaded = probe();
    const server = await startServer({
      DATABASE_URL: sqliteUrl(),
      DEMO_DATA: 'true',
      NODE_OPTIONS: loaded.nodeOptions,
    });
    await server.waitReady();
    const res = await fetch(server.url('/api/demo/marbles'), {
      headers: { traceparent: `00-${TRACE}-${PARENT}-01` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('traceparent')).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    server.child.kill('SIGTERM');
    expect((await server.waitExit()).code).toBe(0);
    // The probe works (prom-client is there) and found no module of the OpenTelemetry SDK. The
    // API package (interfaces and no-op defaults, no SDK) is required by prom-client itself.
    const modules = JSON.parse(readFileSync(loaded.file, 'utf8')) as string[];
    expect(modules).toContain('prom-client');
    expect(
      modules.filter((m) => m.startsWith('@opentelemetry/') && m !== '@opentelemetry/api'),
    ).toEqual([]);
  });
});
