import { describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { mountMcp } from '../../../mcp/http.ts';
import { loneToolCall } from '../../../mcp/direct-call.ts';

/**
 * A lone tools/call is answered without the SDK's Protocol (mcp/direct-call.ts); a progress token
 * sends the same call through the Server. Both must answer alike, success and failure.
 */
engineSuite(
  'MCP: a lone tools/call answers as the Server would',
  { now: () => new Date('2026-11-21T10:00:00.000Z'), app: (services) => createApp(services, registry, [mountMcp]), tenant: true },
  (t) => {
    const post = async (params: Record<string, unknown>, id: number | string = 7) => {
      const response = await t.app.request('/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.tenant.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, any>; // a JSON-RPC response, compared whole
    };
    /** The same call both ways; request ids (which differ per request) are blanked. */
    const bothWays = async (params: Record<string, unknown>) => {
      const direct = await post(params, 'a-1');
      const viaServer = await post({ ...params, _meta: { progressToken: 'p-1' } }, 'a-1');
      const blank = (body: Record<string, any>) => JSON.parse(JSON.stringify(body).replace(/req_[A-Za-z0-9_-]+/g, 'req_X'));
      return { direct: blank(direct), viaServer: blank(viaServer) };
    };

    it("answers a read with the same result and the caller's own id", async () => {
      const { direct, viaServer } = await bothWays({ name: 'companies.get', arguments: { company_id: t.tenant.companyId } });
      expect(direct.id).toBe('a-1');
      expect(direct.result.structuredContent.id).toBe(t.tenant.companyId);
      expect(direct).toEqual(viaServer);
    });

    it("answers a tool the connection does not have, bad arguments and another company's id alike", async () => {
      for (const params of [
        { name: 'no.such_tool', arguments: {} },
        { name: 'companies.get', arguments: { company_id: 42 } },
        { name: 'companies.get', arguments: { company_id: t.tenant.companyId, surprise: true } },
        { name: 'companies.get', arguments: { company_id: '00000000-0000-4000-8000-000000000000' } },
      ]) {
        const { direct, viaServer } = await bothWays(params);
        expect(direct, JSON.stringify(params)).toEqual(viaServer);
        expect(direct.result?.isError ?? direct.error, JSON.stringify(params)).toBeTruthy();
      }
    });
  },
);

describe('loneToolCall', () => {
  const request = (params: unknown) => ({ jsonrpc: '2.0' as const, id: 1, method: 'tools/call', params }) as never;
  it('takes a plain call and leaves everything the Protocol acts on to the Server', () => {
    expect(loneToolCall([request({ name: 'x', arguments: { a: 1 } })])).toEqual({ id: 1, name: 'x', args: { a: 1 } });
    expect(loneToolCall([request({ name: 'x' })])).toEqual({ id: 1, name: 'x', args: {} });
    expect(loneToolCall([request({ name: 'x', _meta: { trace: 't' } })])).toEqual({ id: 1, name: 'x', args: {} });
    expect(loneToolCall([request({ name: 'x', _meta: { progressToken: 1 } })])).toBeNull();
    expect(loneToolCall([request({ name: 'x', task: { ttl: 1 } })])).toBeNull();
    expect(loneToolCall([request({ name: 'x', arguments: [1] })])).toBeNull();
    expect(loneToolCall([request({ name: 5 })])).toBeNull();
    expect(loneToolCall([request({ name: 'x' }), request({ name: 'y' })])).toBeNull();
    expect(loneToolCall([{ jsonrpc: '2.0', method: 'tools/call', params: { name: 'x' } } as never])).toBeNull();
  });
});
