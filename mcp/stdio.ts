import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { authenticateKey } from '../domain/apikeys/keys.ts';
import type { Services } from '../domain/context.ts';
import { registry } from '../registry/index.ts';
import type { Group } from '../registry/define-operation.ts';
import { newRequestId } from '../pipeline/request-id.ts';
import { buildServer, chargeCaller } from './build-server.ts';
import { connection, type Mode } from './connection.ts';
import type { McpContentSources } from './content.ts';
import { logDenial, type DenialFacts } from '../http/denial-log.ts';
import { ToolIndex } from './tools.ts';
import type { Selection } from './toolsets.ts';

export class StdioAuthError extends Error {
  override name = 'StdioAuthError';
}

export interface StdioOptions {
  services: Services;
  /** The bearer key the local user configured (API_KEY); every call acts as this key. */
  apiKey: string;
  selection: Selection;
  /** `tools` (default), `discover` or `dynamic` (toolsets loaded on request). */
  mode?: Mode;
  /** Dynamic mode: the toolsets a session starts with (default DEFAULT_DYNAMIC_TOOLSETS). */
  initialToolsets?: readonly Group[];
  /** Prompts and resources, assembled by the entry point. */
  content?: McpContentSources;
  /** Defaults to the process's stdin/stdout; tests may pass streams. */
  stdin?: Readable;
  stdout?: Writable;
}

/**
 * The stdio server: the same tools and pipeline as /mcp, for one local key. The key is checked at
 * start (a bad key stops the process) and again by every request's admission, so revoking it
 * takes effect at once.
 */
export async function serveStdio(options: StdioOptions): Promise<Server> {
  const { services, selection } = options;
  const principal = await authenticateKey(services.database.prisma, options.apiKey, services.config.RATE_LIMIT_PER_MINUTE);
  if (!principal) throw new StdioAuthError('API_KEY is missing, invalid or revoked: set it to an active key (sk_test_… or sk_live_…).');

  const index = new ToolIndex(registry.operations);
  const served = connection(index, {
    mode: options.mode ?? 'tools',
    selection,
    scopes: principal.scopes,
    content: options.content,
    ...(options.initialToolsets && { initialToolsets: options.initialToolsets }),
  });
  const server = buildServer({
    listChanges: served.tools.listChanges,
    content: served.content !== undefined,
    connection: () => served,
    charge: async () => chargeCaller(services, principal, newRequestId()),
    // Each call's admission in invoke() checks the key again, so revoking it takes effect at once.
    caller: async () => {
      const requestId = newRequestId();
      const facts: DenialFacts = { requestId, address: null, userAgent: null, apiKeyId: principal.apiKeyId, mcp: { transport: 'stdio' } };
      return {
        services,
        principal,
        requestId,
        onDenial: (kind, error) => logDenial(services.logger, facts, kind, error),
      };
    },
  });
  await server.connect(new StdioServerTransport(options.stdin, options.stdout));
  return server;
}
