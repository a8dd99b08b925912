/**
 * Header values a log line may carry (User-Agent and the like) are the caller's text: capped, so a
 * 4 KB User-Agent sent 2,000 times a second cannot write 8 MB of logs a second.
 */
export const MAX_LOGGED_HEADER_CHARS = 256;

export function loggedHeader(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (value.length <= MAX_LOGGED_HEADER_CHARS) return value;
  return `${value.slice(0, MAX_LOGGED_HEADER_CHARS)}…[${value.length - MAX_LOGGED_HEADER_CHARS} more]`;
}
