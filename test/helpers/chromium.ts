import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's headless Chromium (`.ci/run` installs it); the browser tests are skipped without it. */
export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** Says once, in the test's own words, what is skipped when Chromium is absent. */
export function warnIfNoChromium(what: string): void {
  if (!HAS_CHROMIUM) console.warn(`${CHROMIUM} is absent (apt-get install chromium): ${what} is skipped`);
}

/** Headless Chromium that cannot leave loopback: no proxy, and no host name resolves but 127.0.0.1. */
export function launchLoopbackChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--no-proxy-server',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
}
