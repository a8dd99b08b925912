export const RATE_LIMIT_WINDOW_MS = 60_000; // the spec's fixed one-minute window
export const RETRY_AFTER_SECONDS = 60; // spec Limits: always 60, not the seconds remaining

/**
 * The start of the fixed window `now` falls in. Requests are counted per (key, window) by
 * admit_request() in the database, so every process sharing it sees one exact count.
 */
export const rateLimitWindowStart = (now: Date): Date => new Date(Math.floor(now.getTime() / RATE_LIMIT_WINDOW_MS) * RATE_LIMIT_WINDOW_MS);
