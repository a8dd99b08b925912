import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../domain/kernel/config.ts';
import { prettyLogs } from '../../domain/kernel/logger.ts';

describe('configuration', () => {
  it('needs no settings for the embedded default', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 3000, DATA_DIR: './.data', embedded: true, PUBLIC_BASE_URL: 'http://127.0.0.1:3000' });
  });

  it('derives the default canonical base URL from HOST and PORT', () => {
    expect(loadConfig({ HOST: 'localhost', PORT: '8080' }).PUBLIC_BASE_URL).toBe('http://localhost:8080');
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '4000' }).PUBLIC_BASE_URL).toBe('http://127.0.0.1:4000');
    expect(loadConfig({ HOST: '::1' }).PUBLIC_BASE_URL).toBe('http://[::1]:3000');
    expect(loadConfig({ HOST: '0.0.0.0', PUBLIC_BASE_URL: 'https://books.example.com' }).PUBLIC_BASE_URL).toBe('https://books.example.com');
  });

  it('allows no CORS origin by default and takes only exact origins, never *', () => {
    expect(loadConfig({}).CORS_ALLOWED_ORIGINS).toEqual([]);
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: '' }).CORS_ALLOWED_ORIGINS).toEqual([]);
    // URL's origin form: lower-case host, default port dropped, a trailing slash tolerated; duplicates once.
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: 'https://App.Example.com/, http://localhost:5173,https://app.example.com:443' }).CORS_ALLOWED_ORIGINS).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    for (const bad of ['*', 'null', 'app.example.com', 'https://app.example.com/path', 'ftp://files.example.com', 'https://*.example.com']) {
      expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: bad }), bad).toThrow(
        /^Invalid configuration: CORS_ALLOWED_ORIGINS: .* is not an origin: list exact origins/,
      );
    }
  });

  it('fails closed in PostgreSQL mode without the anonymous identity', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x@localhost/db', ENCRYPTION_KEY: 'a'.repeat(64) })).toThrow(
      /^Missing required setting DATABASE_ANON_URL/,
    );
  });

  it('fails closed in PostgreSQL mode without an encryption key', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x@localhost/db', DATABASE_ANON_URL: 'postgres://api_anon@localhost/db' })).toThrow(ConfigError);
  });

  it('takes DATABASE_DIRECT_URL for LISTEN and migrations, defaulting to DATABASE_URL; a distinct one marks DATABASE_URL as pooled', () => {
    const postgres = { DATABASE_URL: 'postgres://x@localhost/db', DATABASE_ANON_URL: 'postgres://api_anon@localhost/db', ENCRYPTION_KEY: 'a'.repeat(64) };
    expect(loadConfig(postgres)).toMatchObject({ DATABASE_DIRECT_URL: postgres.DATABASE_URL, pooled: false });
    expect(loadConfig({ ...postgres, DATABASE_DIRECT_URL: '' })).toMatchObject({ DATABASE_DIRECT_URL: postgres.DATABASE_URL, pooled: false });
    expect(loadConfig({ ...postgres, DATABASE_DIRECT_URL: postgres.DATABASE_URL })).toMatchObject({ pooled: false });
    expect(loadConfig({ ...postgres, DATABASE_URL: 'postgres://x@localhost:6432/db', DATABASE_DIRECT_URL: 'postgres://x@localhost:5432/db' })).toMatchObject({
      DATABASE_URL: 'postgres://x@localhost:6432/db',
      DATABASE_DIRECT_URL: 'postgres://x@localhost:5432/db',
      pooled: true,
    });
    expect(loadConfig({})).toMatchObject({ DATABASE_DIRECT_URL: undefined, pooled: false });
    expect(() => loadConfig({ DATABASE_DIRECT_URL: 'postgres://x@localhost/db' })).toThrow(/^Invalid configuration: DATABASE_DIRECT_URL needs DATABASE_URL/);
  });

  it('names every invalid setting on one line', () => {
    try {
      loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', PUBLIC_BASE_URL: 'ftp://x' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
      expect((error as Error).message).toMatch(/PORT/);
      expect((error as Error).message).toMatch(/LOG_LEVEL/);
      expect((error as Error).message).toMatch(/PUBLIC_BASE_URL/);
    }
  });

  it('logs readable lines on a terminal and JSON otherwise, unless LOG_FORMAT says which', () => {
    expect(loadConfig({}).LOG_FORMAT).toBe('auto');
    expect(prettyLogs(loadConfig({}).LOG_FORMAT, true)).toBe(true);
    expect(prettyLogs(loadConfig({}).LOG_FORMAT, false)).toBe(false);
    expect(prettyLogs(loadConfig({ LOG_FORMAT: 'json' }).LOG_FORMAT, true)).toBe(false);
    expect(prettyLogs(loadConfig({ LOG_FORMAT: 'pretty' }).LOG_FORMAT, false)).toBe(true);
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it('strips a trailing slash from the canonical base URL', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com/' }).PUBLIC_BASE_URL).toBe('https://api.example.com');
  });

  it('reads boolean settings with the one flag grammar: true or false, empty for the default', () => {
    expect(loadConfig({}).DISPATCHER_TIMER).toBe(true);
    expect(loadConfig({ DISPATCHER_TIMER: '' }).DISPATCHER_TIMER).toBe(true);
    expect(loadConfig({ DISPATCHER_TIMER: 'false', MCP_READ_ONLY: 'true', SEED_DEMO: 'true' })).toMatchObject({
      DISPATCHER_TIMER: false,
      MCP_READ_ONLY: true,
      SEED_DEMO: true,
    });
    for (const value of ['0', '1', 'yes', 'TRUE']) {
      expect(() => loadConfig({ DISPATCHER_TIMER: value }), value).toThrow(/DISPATCHER_TIMER: use true or false/);
    }
  });

  it('serves metrics only with METRICS_PORT: a strict port, never the API port, loopback unless told', () => {
    expect(loadConfig({}).METRICS_PORT).toBeUndefined();
    expect(loadConfig({}).METRICS_HOST).toBe('127.0.0.1');
    expect(loadConfig({ METRICS_PORT: '' }).METRICS_PORT).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' })).toMatchObject({ METRICS_PORT: 9464, METRICS_HOST: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: '0', PORT: '0' }).METRICS_PORT).toBe(0);
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).METRICS_HOST).toBe('0.0.0.0');
    for (const value of ['abc', '1e3', '-1', '70000', '94.64', '0x10']) {
      expect(() => loadConfig({ METRICS_PORT: value }), value).toThrow(/^Invalid configuration: METRICS_PORT: use a port number 0-65535/);
    }
    expect(() => loadConfig({ METRICS_PORT: '3000' })).toThrow(/METRICS_PORT must differ from PORT \(3000\)/);
    expect(() => loadConfig({ METRICS_PORT: '8080', PORT: '8080' })).toThrow(/never served on the public API port/);
    expect(() => loadConfig({ METRICS_HOST: '0.0.0.0' })).toThrow(/METRICS_HOST is set but METRICS_PORT is not/);
    for (const env of [{ METRICS_PORT: 'x' }, { METRICS_HOST: '::' }]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
    }
  });
});
