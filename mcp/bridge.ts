import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface BridgeOptions {
  /** The running server's `/mcp` URL, with the connection's query (`?mode=discover&toolsets=…`). */
  url: URL;
  apiKey: string;
  stdin?: Readable;
  stdout?: Writable;
  /** Where a failure to reach the server is reported (stderr: stdout carries the protocol). */
  log(line: string): void;
}

export interface Bridge {
  close(): Promise<void>;
}

/**
 * The stdio process when another process (a running `npm start`) already holds the embedded
 * database: it forwards every JSON-RPC message between the stdio client and that server's /mcp,
 * with the configured key as the bearer. The server does the work — same tools, pipeline and
 * delivery loop — so nothing here knows about tools. A message the server cannot be reached for
 * is answered with a JSON-RPC error, so the client is never left waiting.
 */
export async function bridgeStdio(options: BridgeOptions): Promise<Bridge> {
  const local = new StdioServerTransport(options.stdin, options.stdout);
  const remote = new StreamableHTTPClientTransport(options.url, {
    requestInit: { headers: { Authorization: `Bearer ${options.apiKey}` } },
  });
  const pendingInitialize = new Set<string | number>();

  remote.onmessage = (message) => {
    // The protocol version the server chose goes on every later request, as an SDK client does.
    if ('id' in message && pendingInitialize.delete(message.id as string | number) && 'result' in message) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') remote.setProtocolVersion(version);
    }
    void local.send(message);
  };
  remote.onerror = (error) => options.log(`MCP bridge: ${error.message}`);
  local.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') pendingInitialize.add(message.id);
    remote.send(message).catch((error: Error) => {
      options.log(`MCP bridge: ${options.url.origin} did not take a message: ${error.message}`);
      if (!isJSONRPCRequest(message)) return;
      void local.send({
        jsonrpc: '2.0',
        id: message.id,
        error: {
          code: ErrorCode.InternalError,
          message: `The MCP server at ${options.url.origin} could not be reached or refused the request: ${error.message}`,
        },
      });
    });
  };
  await remote.start();
  await local.start();
  return {
    close: async () => {
      await Promise.allSettled([remote.close(), local.close()]);
    },
  };
}
