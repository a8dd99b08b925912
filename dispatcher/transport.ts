/**
 * Outbound HTTPS connections for webhook delivery, pinned to an address the URL check approved.
 *
 * One undici Agent per (origin, resolved address): the Agent's connector ignores DNS and dials
 * exactly that address, while TLS still uses the URL's hostname for SNI and certificate checks
 * (and undici derives `Host` from the origin). Keying on the address as well as the origin means
 * a DNS change never sends a request over a connection made to the old address, and keeping the
 * Agents means consecutive deliveries to one receiver reuse one TLS connection.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Agent } from 'undici';
import { undici } from './undici.ts';

/** Enough for every distinct receiver a busy tick talks to; beyond it the oldest is closed. */
export const MAX_PINNED_AGENTS = 256;
/**
 * Open connections to one receiver at most. A batch of 50 deliveries to one host shares them
 * (queued requests still end at the attempt's deadline), so a burst never opens 50 sockets
 * against one endpoint and 1,000 deliveries to a host reuse the same few.
 */
export const MAX_CONNECTIONS_PER_RECEIVER = 10;

/** Upper bound on TCP connect + TLS handshake when the caller does not give one. */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export interface TransportOptions {
  /** PEM CA certificates trusted in addition to the default store (which includes NODE_EXTRA_CA_CERTS). */
  extraCaCerts?: readonly string[];
  /** TCP connect + TLS handshake limit. */
  connectTimeoutMs?: number;
  /** Bound on the number of cached Agents. Default {@link MAX_PINNED_AGENTS}. */
  maxAgents?: number;
}

export interface Transport {
  /**
   * The Agent for `origin` (scheme://host:port of the URL) that connects only to `address`
   * (an IP literal already approved by the URL check). Throws once the transport is closed.
   */
  agentFor(origin: string, address: string): Agent;
  /** Number of cached Agents (for tests and metrics). */
  readonly size: number;
  /** Closes every Agent, letting in-flight requests finish. */
  close(): Promise<void>;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type PinnedLookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A `lookup` for net/tls.connect that always answers `address`. Node 20 calls it with
 * `{ all: true }` (autoSelectFamily) and then expects an array; answering a bare string
 * there makes every connection fail, so both shapes are honoured.
 */
export function pinnedLookup(address: string): PinnedLookup {
  const family = isIP(address);
  if (family === 0) throw new TypeError(`pinnedLookup: ${address} is not an IP literal`);
  return (_hostname, options, callback) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/**
 * Default trust store plus `extraCaCerts`. Passing `ca` to tls would *replace* the defaults
 * (and drop NODE_EXTRA_CA_CERTS); a context created without `ca` loads them, and addCACert
 * adds ours on top.
 */
export function buildSecureContext(extraCaCerts: readonly string[] = []): SecureContext {
  const secureContext = createSecureContext();
  for (const pem of extraCaCerts) {
    // `context` is typed `any` in @types/node: it is the native SecureContext binding.
    secureContext.context.addCACert(pem);
  }
  return secureContext;
}

/**
 * The host as TLS sees it: IPv6 brackets off (`[::1]` is `::1` in certificates) and no
 * trailing dot (SNI forbids it; `localhost.` is the same name as `localhost`).
 */
function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.+$/, '');
}

export function createTransport(options: TransportOptions = {}): Transport {
  // Made with the first Agent: loading the default trust store is a cost a start need not pay (issue 30).
  let secureContext: SecureContext | undefined;
  const connectTimeout = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const maxAgents = options.maxAgents ?? MAX_PINNED_AGENTS;
  // Map iteration order is insertion order; re-inserting on use makes it least-recently-used first.
  const agents = new Map<string, Agent>();
  let closed = false;

  function createAgent(origin: string, address: string): Agent {
    const host = bareHost(new URL(origin).hostname);
    const { Agent } = undici();
    return new Agent({
      // Pinned to one origin: anything else dispatched through it is refused, never mis-routed.
      maxOrigins: 1,
      connections: MAX_CONNECTIONS_PER_RECEIVER,
      connect: {
        lookup: pinnedLookup(address),
        // SNI must be a hostname; for an IP-literal URL, tls checks the IP SAN against `host`.
        ...(isIP(host) === 0 && { servername: host }),
        rejectUnauthorized: true,
        secureContext: (secureContext ??= buildSecureContext(options.extraCaCerts)),
        timeout: connectTimeout,
      },
    });
  }

  return {
    agentFor(origin, address) {
      if (closed) throw Object.assign(new Error('transport is closed'), { code: 'TRANSPORT_CLOSED' });
      const key = `${origin}|${address}`;
      let agent = agents.get(key);
      if (agent) {
        agents.delete(key);
      } else {
        agent = createAgent(origin, address);
        while (agents.size >= maxAgents) {
          const [oldestKey, oldest] = agents.entries().next().value as [string, Agent];
          agents.delete(oldestKey);
          // close() waits for the evicted Agent's in-flight requests; nobody needs to await it.
          oldest.close().catch(() => {});
        }
      }
      agents.set(key, agent);
      return agent;
    },
    get size() {
      return agents.size;
    },
    async close() {
      closed = true;
      const all = [...agents.values()];
      agents.clear();
      await Promise.allSettled(all.map((agent) => agent.close()));
    },
  };
}
