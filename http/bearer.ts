/** How every HTTP surface reads `Authorization: Bearer <token>` (REST, /mcp, the cron route). */
export type BearerResult = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'token'; token: string };

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

export function readBearer(header: string | undefined): BearerResult {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const match = BEARER.exec(header);
  return match?.[1] ? { kind: 'token', token: match[1] } : { kind: 'malformed' };
}
