/**
 * Debian's Chromium for the browser tests (CHROMIUM_PATH, default /usr/bin/chromium), started
 * headless with the flags this machine needs: no sandbox as root, and no background networking
 * (the machine's closed network refuses those connections, many at a time).
 */
import { existsSync } from 'node:fs';
import { Browser, chromium } from 'playwright-core';

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
