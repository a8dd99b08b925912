/**
 * The one request-body limit of every HTTP surface (REST bodies and /mcp JSON-RPC messages):
 * enforced as bytes arrive, so a body without Content-Length is never buffered whole.
 */
export const MAX_BODY_BYTES = 1024 * 1024;

/** `1 MiB`: how the limit is spelled in messages and hints. */
export const MAX_BODY_TEXT = `${MAX_BODY_BYTES / (1024 * 1024)} MiB`;
