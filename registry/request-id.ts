import { randomBytes } from 'node:crypto';

/**
 * The one request-id format (`req_` + 16 base64url characters), used by REST, /mcp and stdio, so
 * audit entries and logs look alike whatever the surface.
 */
export const newRequestId = (): string => `req_${randomBytes(12).toString('base64url')}`;

export const REQUEST_ID_PATTERN = /^req_[A-Za-z0-9_-]{16}$/;
