import type { Config } from '../domain/kernel/config.ts';

/**
 * Host and Origin checks for /mcp against DNS rebinding: a web page whose name was re-pointed at
 * this server must not be able to drive it from a browser. Checked by us, not by the transport
 * (its options for this are deprecated).
 */
export interface HostPolicy {
  hostAllowed(host: string | undefined): boolean;
  /** A missing Origin (every non-browser client) is fine; a present one must be ours. */
  originAllowed(origin: string | undefined): boolean;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/** `Host` value → hostname (brackets kept for IPv6) and port; null when it is not a host[:port]. */
function parseHost(host: string): { hostname: string; port: string } | null {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(host.trim().toLowerCase());
  return match ? { hostname: match[1] as string, port: match[2] ?? '' } : null;
}

function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin.toLowerCase() : null;
  } catch {
    return null;
  }
}

export function hostPolicy(config: Pick<Config, 'PUBLIC_BASE_URL' | 'MCP_ALLOWED_HOSTS' | 'MCP_ALLOWED_ORIGINS'>): HostPolicy {
  const base = new URL(config.PUBLIC_BASE_URL);
  // An entry with a port matches that host:port only; one without matches the name on any port.
  const hosts = [base.host.toLowerCase(), ...list(config.MCP_ALLOWED_HOSTS)];
  const origins = new Set([base.origin.toLowerCase(), ...list(config.MCP_ALLOWED_ORIGINS).map((o) => originOf(o) ?? o)]);

  return {
    hostAllowed(host) {
      if (host === undefined) return false;
      const parsed = parseHost(host);
      if (!parsed) return false;
      if (LOOPBACK.has(parsed.hostname)) return true;
      const exact = parsed.port ? `${parsed.hostname}:${parsed.port}` : parsed.hostname;
      return hosts.some((entry) => entry === exact || entry === parsed.hostname);
    },
    originAllowed(origin) {
      if (origin === undefined) return true;
      const normalised = originOf(origin);
      if (!normalised) return false; // includes the opaque "null" origin of sandboxed pages
      if (LOOPBACK.has(new URL(normalised).hostname)) return true;
      return origins.has(normalised);
    },
  };
}
