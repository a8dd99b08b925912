import { API_VERSION } from '../domain/kernel/version.ts';

/**
 * The spec's response headers (Authentication 9), shared by every HTTP surface (REST, MCP,
 * discovery). Referrer-Policy's value is ours (DESIGN.md §6): the spec asks only for a strict one.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Service-Version': API_VERSION,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
};

/** Wrapped (authenticated) API responses add this; public discovery routes omit it. */
export const ROBOTS_TAG = { name: 'X-Robots-Tag', value: 'noai, noimageai' } as const;
