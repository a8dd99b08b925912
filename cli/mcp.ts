import '../mcp/stdout-guard.ts'; // first: keeps stdout for the protocol alone
import { parseArgs } from 'node:util';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createServices } from '../domain/bootstrap.ts';
import { ConfigError } from '../domain/kernel/config.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import { serveStdio, StdioAuthError } from '../mcp/stdio.ts';
import { resolveSelection, type Selection } from '../mcp/toolsets.ts';
import { configFromEnvironment, startupStep } from './load-config.ts';

const USAGE = `Usage: API_KEY=sk_… npm run mcp -- [--variant namespaced|flat] [--toolsets a,b] [--read-only]
Serves the MCP tools over stdio for the key in API_KEY (logs go to stderr). MCP_TOOLSETS and
MCP_READ_ONLY apply as on /mcp; the flags can only narrow them.`;

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};

const { values } = parseArgs({
  options: {
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
try {
  selection = resolveSelection(config, { variant: values.variant, toolsets: values.toolsets, readOnly: values['read-only'] });
} catch (error) {
  if (error instanceof DomainError) fail(`Invalid MCP options: ${error.message}`);
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}

const services = await startupStep(() => createServices(config, { processName: 'npm run mcp' }));
let server: Server;
try {
  server = await serveStdio({ services, apiKey, selection });
} catch (error) {
  await services.database.close();
  if (error instanceof StdioAuthError) fail(error.message);
  throw error;
}
services.logger.info({ transport: 'stdio', variant: selection.variant, toolsets: selection.toolsets, read_only: selection.readOnly }, 'MCP server ready');

let closing = false;
const shutdown = (): void => {
  if (closing) return;
  closing = true;
  void server
    .close()
    .then(() => services.database.close())
    .finally(() => process.exit(0));
};
// The client ending our stdin is the normal way a stdio session ends.
process.stdin.once('end', shutdown);
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
