import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { PDF, PNG, uploadFile } from '../../helpers/documents.ts';
import { connectInProcess, dataOf, firstJson } from '../../helpers/mcp-client.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { mountMcp } from '../../../mcp/http.ts';
import { MAX_EMBEDDED_FILE_BYTES } from '../../../mcp/call-tool.ts';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe.each(DB_TARGETS)('MCP documents: base64 uploads and embedded downloads (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  let mcp: Client;

  beforeAll(async () => {
    t = await createTestServices(target);
    app = createApp(t.services, registry, [mountMcp]);
    tenant = await makeTenant(t.services.database.prisma);
    mcp = await connectInProcess(app, { key: tenant.key });
  });
  afterAll(async () => {
    await mcp?.close();
    await t?.close();
  });

  it('uploads a PNG sent as base64 and downloads the same bytes as an embedded resource', async () => {
    const tools = (await mcp.listTools()).tools;
    const upload = tools.find((tool) => tool.name === 'documents.upload')!;
    expect(upload.inputSchema.required).toEqual(expect.arrayContaining(['company_id', 'content_base64']));
    expect(Object.keys(upload.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['content_base64', 'filename', 'description']));

    const uploaded = await mcp.callTool({
      name: 'documents.upload',
      arguments: { company_id: tenant.companyId, content_base64: PNG.toString('base64'), filename: 'kvitto.png', description: 'Lunch' },
    });
    expect(uploaded.isError, JSON.stringify(uploaded.content)).toBeFalsy();
    const document = dataOf(uploaded) as { id: string; content_type: string; sha256: string; filename: string };
    expect(document).toMatchObject({ content_type: 'image/png', sha256: sha256(PNG), filename: 'kvitto.png' });

    const downloaded = await mcp.callTool({ name: 'documents.download', arguments: { company_id: tenant.companyId, document_id: document.id } });
    expect(downloaded.isError).toBeFalsy();
    expect(downloaded.structuredContent).toMatchObject({ id: document.id, sha256: sha256(PNG) });
    const resource = (downloaded.content as { type: string; resource?: { blob: string } }[]).find((item) => item.type === 'resource');
    expect(resource).toMatchObject({
      type: 'resource',
      resource: { mimeType: 'image/png', uri: expect.stringContaining(`/documents/${document.id}/content`) },
    });
    const blob = resource!.resource!.blob;
    expect(Buffer.from(blob, 'base64').equals(PNG)).toBe(true);
  });

  it("refuses damaged base64 and a missing file in the tool's own words", async () => {
    const damaged = await mcp.callTool({ name: 'documents.upload', arguments: { company_id: tenant.companyId, content_base64: 'not*base64!' } });
    expect(damaged.isError).toBe(true);
    expect(firstJson(damaged).error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'content_base64' }] });

    const empty = await mcp.callTool({ name: 'documents.upload', arguments: { company_id: tenant.companyId, content_base64: '' } });
    expect(firstJson(empty).error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'content_base64' }] });

    const missing = await mcp.callTool({ name: 'documents.upload', arguments: { company_id: tenant.companyId } });
    expect(firstJson(missing).error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(JSON.stringify(firstJson(missing).error)).toContain('content_base64');
  });

  it('names the REST URL instead of embedding a file over the limit', async () => {
    // A PDF padded past the embedding limit (the type is read from its first bytes).
    const big = Buffer.concat([PDF, Buffer.alloc(MAX_EMBEDDED_FILE_BYTES + 1, 0x20)]);
    const uploaded = await uploadFile(app, tenant.key, tenant.companyId, big, { filename: 'big.pdf' });
    expect(uploaded.status).toBe(201);
    const downloaded = await mcp.callTool({ name: 'documents.download', arguments: { company_id: tenant.companyId, document_id: uploaded.body.data.id } });
    expect(downloaded.isError).toBeFalsy();
    expect((downloaded.content as { type: string }[]).some((item) => item.type === 'resource')).toBe(false);
    expect(JSON.stringify(downloaded.content)).toContain(`GET http`);
  });
});
