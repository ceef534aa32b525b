/**
 * `GET /api/operations`: what the route takes, with an example body, in JSON and XML; in a
 * browser, its page has a form that sends a JSON or XML body to the route and shows the results
 * (assets/browsable.js, `data-show`), escaped like every page.
 */
import { USERS, marbleRow } from '../support/fixtures';
import { useApp } from '../support/harness';
import { expectJson, expectXml } from '../support/http';

const MESSAGE =
  'POST {"operations": [...]} here: several writes over several collections, in order, in one transaction (docs/operations-api.md).';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('atomic operations: the route described, and its page', () => {
  const t = useApp({ operationsMax: 20 });

  it('should describe the route in JSON and XML, with its limit and an example', async () => {
    const res = await t.http().get('/api/operations');
    expectJson(res, 200);
    expect(res.body).toMatchObject({ message: MESSAGE, max_operations: 20 });
    expect(res.body.example.operations[0]).toMatchObject({ op: 'create', collection: 'marbles' });

    const xml = await t.http().get('/api/operations.xml');
    expectXml(xml, 200);
    expect(xml.text).toContain('<max-operations type="integer">20</max-operations>');
    expect(xml.text).toContain('<operations type="array"><operation><op>create</op>');
  });

  it('should give a browser a page with a form that sends a body and shows the results', async () => {
    const res = await t.http().get('/api/operations').set('Accept', BROWSER);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain(
      '<form class="write raw" data-action="/api/operations" data-show="" id="send-form">',
    );
    expect(res.text).toContain('<input type="hidden" name="method" value="POST">');
    // The example, escaped, as the body to send.
    expect(res.text).toContain('&quot;op&quot;: &quot;create&quot;');
    expect(res.text).not.toMatch(/<script>|style=|onclick/);
  });

  it('should answer a method it does not serve with 405 and Allow', async () => {
    const res = await t.http().put('/api/operations').send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
  });
});

describe('atomic operations with REQUIRE_IF_MATCH=true', () => {
  const t = useApp({
    requireIfMatch: true,
    seedEach: { users: USERS, marbles: [marbleRow(7, 'Amber')] },
  });

  it('should refuse a write of one record without if_match (428, naming it) before anything runs', async () => {
    const res = await t
      .http()
      .post('/api/operations')
      .send({
        operations: [
          { op: 'create', collection: 'marbles', record: { name: 'Opal' } },
          { op: 'toggle_is_discounted', collection: 'marbles', id: 7 },
        ],
      });
    expectJson(res, 428);
    expect(res.body).toEqual({
      message:
        'Operation 2 (toggle_is_discounted marbles 7): This write needs an if_match with the record\'s ETag (or "*"): read the record first.',
      operation: 2,
    });
    expect((await t.rows('marbles')).map((m) => m.name)).toEqual(['Amber']);
    const tag = (await t.http().get('/api/demo/marbles/7')).headers.etag as string;
    const ok = await t
      .http()
      .post('/api/operations')
      .send({
        operations: [
          { op: 'create', collection: 'marbles', record: { name: 'Opal' } },
          { op: 'toggle_is_discounted', collection: 'marbles', id: 7, if_match: tag },
        ],
      });
    expectJson(ok, 200);
  });
});
