import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { connectInProcess, dataOf, firstJson } from '../../helpers/mcp-client.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { mountMcp } from '../../../mcp/http.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';

const HOOK_URL = 'https://127.0.0.1:9/hook'; // an IP literal: no DNS; loopback is allowed below

describe.each(DB_TARGETS)('secret rotation over MCP (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  let mcp: Client;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await createTestServices(target, { config: { WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8' } });
    app = createApp(t.services, registry, [mountMcp]);
    tenant = await makeTenant(t.services.database.prisma);
    mcp = await connectInProcess(app, { key: tenant.key });
    clients.push(mcp);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  const createHook = async (eventType = 'company.updated') =>
    dataOf(
      await mcp.callTool({
        name: 'webhooks.create',
        arguments: { company_id: tenant.companyId, event_type: eventType, webhook_url: HOOK_URL, name: 'mcp', idempotency_key: randomUUID() },
      }),
    ) as { id: string; secret: string };

  it('rotates (new secret once, overlap set), ends the overlap, and needs an idempotency key', async () => {
    const hook = await createHook();
    const rotated = await mcp.callTool({
      name: 'webhooks.rotate_secret',
      arguments: { company_id: tenant.companyId, webhook_id: hook.id, overlap_seconds: 600, idempotency_key: randomUUID() },
    });
    expect(rotated.isError).toBeFalsy();
    const data = dataOf(rotated) as { secret: string; previous_secret_expires_at: string | null };
    expect(data.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(data.secret).not.toBe(hook.secret);
    expect(data.previous_secret_expires_at).not.toBeNull();
    const row = await t.services.database.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(t.services.secretBox.decrypt(row.secretEncrypted)).toBe(data.secret);
    expect(t.services.secretBox.decrypt(row.previousSecretEncrypted!)).toBe(hook.secret);

    const ended = await mcp.callTool({ name: 'webhooks.expire_previous_secret', arguments: { company_id: tenant.companyId, webhook_id: hook.id } });
    expect(ended.isError).toBeFalsy();
    expect(dataOf(ended)).toMatchObject({ id: hook.id, previous_secret_expires_at: null });
    expect((await t.services.database.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } })).previousSecretEncrypted).toBeNull();

    const missingKey = await mcp.callTool({ name: 'webhooks.rotate_secret', arguments: { company_id: tenant.companyId, webhook_id: hook.id } });
    expect(missingKey.isError).toBe(true);
    expect(firstJson(missingKey).error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
  });

  it('refuses a payroll webhook to a key without payroll:read as a tool error naming the scope', async () => {
    const hook = await createHook('agi.generated');
    const narrow = await makeKey(t.services.database.prisma, tenant.userId, { scopes: SCOPES.filter((s) => s !== 'payroll:read') });
    const client = await connectInProcess(app, { key: narrow.key });
    clients.push(client);
    const denied = await client.callTool({
      name: 'webhooks.rotate_secret',
      arguments: { company_id: tenant.companyId, webhook_id: hook.id, idempotency_key: randomUUID() },
    });
    expect(denied.isError).toBe(true);
    expect(firstJson(denied).error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      required_scope: 'payroll:read',
    });
  });
});
