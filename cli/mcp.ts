import '../mcp/stdout-guard.ts'; // first: keeps stdout for the protocol alone
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createServices } from '../domain/bootstrap.ts';
import { embeddedDatabaseExists } from '../domain/db/client.ts';
import { ConfigError } from '../domain/kernel/config.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import { startWorker, type Worker } from '../dispatcher/worker.ts';
import { bridgeStdio } from '../mcp/bridge.ts';
import { MCP_PATH } from '../mcp/http.ts';
import { resolveMode, type Mode } from '../mcp/connection.ts';
import { serveStdio, StdioAuthError } from '../mcp/stdio.ts';
import { resolveSelection, type Selection } from '../mcp/toolsets.ts';
import type { Group } from '../registry/define-operation.ts';
import { MCP_OPTIONS, type McpOption } from '../registry/mcp-options.ts';
import { configFromEnvironment, startupStep } from './load-config.ts';
import { runningServer } from './local-server.ts';
import { mcpContentSources } from './mcp-content.ts';

// Generated from the options /mcp takes (registry/mcp-options.ts), so the two cannot drift.
const USAGE = `Usage: API_KEY=sk_… node_modules/.bin/tsx cli/mcp.ts [options]
Serves the MCP tools over stdio for the key in API_KEY; stdout carries only the protocol, logs go to stderr.
${Object.values(MCP_OPTIONS)
  .map(
    (option: McpOption) =>
      `  ${option.flag}${option.flag === MCP_OPTIONS.readOnly.flag ? '' : ` ${option.list ? 'a,b' : option.values.join('|')}`}\n      ${option.does} (default ${option.default}; /mcp: ?${option.query}=)`,
  )
  .join('\n')}
  --url URL
      bridge stdio to a running server's /mcp (for clients that only speak stdio)
MCP_TOOLSETS and MCP_READ_ONLY apply as on /mcp; the flags can only narrow them. On the embedded
database, a server already running on the same DATA_DIR is used through its /mcp (bridge).`;

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};

const { values } = parseArgs({
  options: {
    mode: { type: 'string' },
    url: { type: 'string' },
    variant: { type: 'string' },
    toolsets: { type: 'string' },
    'read-only': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(0);
}

const config = configFromEnvironment();
// The entry point reads the environment (as load-config does); API_KEY is this command's alone.
const apiKey = process.env.API_KEY?.trim() ?? '';
if (apiKey === '') fail('Missing required setting API_KEY: the API key the MCP tools act as.');

let selection: Selection;
let mode: Mode;
let initialToolsets: readonly Group[] | undefined;
try {
  mode = resolveMode(values.mode);
  // In dynamic mode --toolsets names the toolsets a session starts with; the rest can be enabled.
  selection = resolveSelection(config, { variant: values.variant, toolsets: mode === 'dynamic' ? undefined : values.toolsets, readOnly: values['read-only'] });
  if (mode === 'dynamic' && values.toolsets) initialToolsets = resolveSelection(config, { toolsets: values.toolsets }).toolsets;
} catch (error) {
  if (error instanceof DomainError) fail(`Invalid MCP options: ${error.message}`);
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);
let target: URL | null = null;
let holder = '';
if (values.url) {
  try {
    target = new URL(values.url);
  } catch {
    fail(`Invalid --url ${values.url}: give the server's MCP endpoint, e.g. http://localhost:3000/mcp.`);
  }
  if (target && !/^https?:$/.test(target.protocol)) fail(`Invalid --url ${values.url}: use http or https.`);
} else if (config.embedded) {
  const running = await runningServer(config.DATA_DIR);
  if (running) {
    target = new URL(MCP_PATH, running.url);
    holder = ` (server pid ${running.pid} holds ${config.DATA_DIR})`;
  }
}
let shutdown: () => Promise<void>;

if (target) {
  // A server was named (--url), or holds the embedded database (one process at a time): use its
  // /mcp, which also runs the delivery loop. Dynamic toolsets need a session the stateless /mcp does not keep.
  if (mode === 'dynamic') log('MCP: dynamic toolsets need the database in this process; bridging in tools mode instead.');
  const url = target;
  if (mode === 'discover') url.searchParams.set('mode', 'discover');
  if (mode !== 'dynamic' && values.toolsets) url.searchParams.set('toolsets', selection.toolsets.join(','));
  if (selection.readOnly) url.searchParams.set('read_only', 'true');
  url.searchParams.set('variant', selection.variant);
  const bridge = await bridgeStdio({ url, apiKey, log });
  log(`MCP server ready: bridging stdio to ${url.origin}${url.pathname}${holder}`);
  shutdown = () => bridge.close();
} else {
  // A database created here would hold no key, so the session could only fail, later and vaguely;
  // and a client started from its own working directory would leave it there (issue 29).
  if (config.embedded) refuseFreshDatabase(config.DATA_DIR);
  // The data directory's lock names this process to any other that tries to open it.
  const services = await startupStep(() => createServices(config, { processName: 'the MCP stdio server (cli/mcp.ts)' }));
  let worker: Worker | null = null;
  let server: Server;
  try {
    server = await serveStdio({ services, apiKey, selection, mode, content: mcpContentSources(services), ...(initialToolsets && { initialToolsets }) });
  } catch (error) {
    await services.database.close();
    if (error instanceof StdioAuthError) fail(error.message);
    throw error;
  }
  // Holding the embedded database makes this the only process that can send what its tools queue.
  if (config.embedded && config.DISPATCHER_TIMER) worker = startWorker(services);
  services.logger.info(
    { transport: 'stdio', mode, variant: selection.variant, toolsets: selection.toolsets, read_only: selection.readOnly, delivery_loop: worker !== null },
    'MCP server ready',
  );
  shutdown = async () => {
    await server.close();
    await worker?.stop();
    await services.database.close();
  };
}

/**
 * The stdio server never creates the embedded database: only `npm start` (which seeds the demo key)
 * or `npm run migrate` does. A missing one almost always means DATA_DIR was left out of a client's
 * config, so the relative default met the client's working directory.
 */
function refuseFreshDatabase(dataDir: string): void {
  // 'memory' is a throwaway database asked for on purpose.
  if (dataDir === 'memory' || embeddedDatabaseExists(dataDir)) return;
  const where = resolve(dataDir);
  const relative = isAbsolute(dataDir) ? '' : ` (DATA_DIR ${JSON.stringify(dataDir)} taken from the working directory ${process.cwd()})`;
  fail(
    `No embedded database at ${where}${relative}, and the MCP stdio server does not create one: a new database has no key to act as. ` +
      "Set DATA_DIR in the MCP client's config to the absolute path of your checkout's .data directory (created by the first npm start), or pass --url to use a running server.",
  );
}

let closing = false;
const stop = (): void => {
  if (closing) return;
  closing = true;
  void shutdown().finally(() => process.exit(0));
};
// The client ending our stdin is the normal way a stdio session ends.
process.stdin.once('end', stop);
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
