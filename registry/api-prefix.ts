/** Where the versioned REST API lives (spec Versioning 1); every surface builds paths from it. */
export const API_PREFIX = '/api/v1';
