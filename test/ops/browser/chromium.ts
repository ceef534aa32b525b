/// <reference lib="dom" />
/**
 * Debian's Chromium for the browser tests (CHROMIUM_PATH, default /usr/bin/chromium), started
 * headless with the flags this machine needs: no sandbox as root, and no background networking
 * (the machine's closed network refuses those connections, many at a time).
 */
import { existsSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { Browser, BrowserContext, Page, chromium } from 'playwright-core';
import { AppOptions, TestApp } from '../../e2e/support/harness';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM} (apt-get install chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The app of a browser test, listening on a port of its own, and the browser. */
export interface BrowserSession {
  browser: Browser;
  /** `http://127.0.0.1:<port>`. */
  base: string;
}

/**
 * Before the suite, `t` listening on 127.0.0.1 (port of the system's choosing) and Chromium
 * started; after it, the browser closed (the app closes with `useApp`).
 */
export function useBrowser(t: TestApp): BrowserSession {
  const session = {} as BrowserSession;
  beforeAll(async () => {
    const server = await t.app.listen(0, '127.0.0.1');
    session.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    session.browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await session.browser?.close();
  });
  return session;
}

/** An app on an in-memory SQLite database with the demo data, writes taking `apiToken` if any. */
export function demoApp(apiToken?: string): AppOptions {
  return {
    database: { type: 'sqlite', path: ':memory:' },
    apiToken,
    seed: async (app) => app.demoData.load(),
  };
}

/** Makes every page of `context` record the Content-Security-Policy violations it meets. */
export async function recordCspViolations(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
}

/** The violations `page` recorded (`recordCspViolations`), as `<directive> <blocked URI>`. */
export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
}

/** Resolves once `condition` holds (checked every few ms), or fails naming `what` after 20 s. */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A JSON call to the app under `base()` with the bearer `token`: its status and parsed body ({}
 * for none). For the suites that write beside the page they watch.
 */
export function jsonCaller(base: () => string, token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/json',
        Authorization: `Bearer ${token}`,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
}
