/**
 * The request examples of the OpenAPI document, sent as they are, in JSON and in XML, to the app
 * holding the demo data of `collections`: each route answers its first documented status.
 */
import type { Response } from 'supertest';
import type { Collection } from '../../sources';
import { useApp } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Tens of requests, some of them writes, on a loaded machine or a far MySQL. */
const REQUESTS_TIMEOUT = 120_000;

export function describeDocumentExamples(collections: readonly Collection[], token: string): void {
  const TOKEN = token;
  describe.each(['application/json', 'application/xml'])(
    'The request examples of the OpenAPI document in %s',
    (type) => {
      const t = useApp({
        apiToken: TOKEN,
        collections,
        seed: async (app) => app.demoData.load(),
      });

      it(
        "should be accepted as they are, on the demo data, in the document's order",
        async () => {
          const doc = (await t.http().get('/api/openapi.json')).body as Json;
          const outcomes: unknown[] = [];
          /** The id of the record each create path made. */
          const created = new Map<string, number>();
          const expected: unknown[] = [];
          // In the document's order, DELETEs last: a record (a webhook subscription) one deletes
          // may be what the routes after it in the document act on.
          const operations = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
            (Object.entries(item as Json) as [string, Json][]).map(
              ([method, op]) => [path, method, op] as const,
            ),
          );
          operations.sort((a, b) => Number(a[1] === 'delete') - Number(b[1] === 'delete'));
          {
            for (const [path, method, op] of operations) {
              // A webhook subscription's routes act on the one the document's create made: its
              // id is the database's (on a Galera cluster, not 1 after other suites' rows).
              const idExample = (op.parameters as Json[]).find((p) => p.name === 'id')?.example;
              const id = path.startsWith('/api/webhooks/')
                ? created.get('/api/webhooks')
                : idExample;
              let req = t
                .http()
                [method as 'get'](path.replace('{id}', String(id)))
                .set('Authorization', `Bearer ${TOKEN}`);
              const example = op.requestBody?.content[type].example;
              if (example !== undefined) req = req.set('Content-Type', type).send(example);
              const res: Response = await req;
              if (res.status === 201 && res.headers.location) {
                created.set(path, Number(/\/(\d+)$/.exec(res.headers.location as string)?.[1]));
              }
              outcomes.push([op.operationId, res.status, res.status >= 400 ? res.text : '']);
              expected.push([op.operationId, Number(Object.keys(op.responses as Json)[0]), '']);
            }
          }
          expect(outcomes).toEqual(expected);
        },
        REQUESTS_TIMEOUT,
      );
    },
  );
}
