/**
 * Polling for tests that watch real processes and databases. The limit only bounds how long a
 * broken run waits before it fails with `what`; no test depends on how soon a condition holds.
 */
const POLL_MS = 50;

/** Waits until `condition` holds. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, limitMs = 120_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Reads until `done` accepts the value, and returns it; the error names the last value read. */
export async function untilValue<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, limitMs = 120_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
