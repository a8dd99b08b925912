/** The API version: a date, sent as `Service-Version` and `meta.api_version`, pinned by webhooks. */
export const API_VERSION = '2026-11-01';
