import { randomBytes } from 'node:crypto';

const ID_BYTES = 12; // 16 base64url characters: 96 random bits
const POOL_IDS = 512;
let pool = randomBytes(ID_BYTES * POOL_IDS);
let offset = 0;

/**
 * The one request-id format (`req_` + 16 base64url characters), used by REST, /mcp and stdio, so
 * audit entries and logs look alike whatever the surface. Random bytes are drawn 512 ids at a
 * time: one `randomBytes(12)` per request cost more than everything else the middleware did.
 */
export function newRequestId(): string {
  if (offset === pool.length) {
    pool = randomBytes(ID_BYTES * POOL_IDS);
    offset = 0;
  }
  const id = `req_${pool.toString('base64url', offset, offset + ID_BYTES)}`;
  offset += ID_BYTES;
  return id;
}

export const REQUEST_ID_PATTERN = /^req_[A-Za-z0-9_-]{16}$/;
