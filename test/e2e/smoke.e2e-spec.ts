import { startApp, TestApp } from './harness';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('should answer ping', async () => {
    const res = await t.http().get('/api/demo/emails/ping').expect(200);
    expect(res.text).toBe('{"message":"pong"}');
  });
});
