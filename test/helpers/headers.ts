import { expect } from 'vitest';

/**
 * What spec Authentication 9 requires on wrapped responses, written out literally (not imported
 * from the code under test). Public discovery routes send the same minus X-Robots-Tag.
 */
export const EXPECTED_PUBLIC_HEADERS: Readonly<Record<string, string | RegExp>> = {
  'x-request-id': /^req_[A-Za-z0-9_-]{16}$/,
  'service-version': /^\d{4}-\d{2}-\d{2}$/,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
};

export const EXPECTED_WRAPPED_HEADERS: Readonly<Record<string, string | RegExp>> = {
  ...EXPECTED_PUBLIC_HEADERS,
  'x-robots-tag': 'noai, noimageai',
};

export function expectHeaders(headers: Headers, expected: Readonly<Record<string, string | RegExp>>, skip: string[] = []): void {
  for (const [name, value] of Object.entries(expected)) {
    if (skip.includes(name)) continue;
    const actual = headers.get(name);
    if (value instanceof RegExp) expect(actual, name).toMatch(value);
    else expect(actual, name).toBe(value);
  }
}
