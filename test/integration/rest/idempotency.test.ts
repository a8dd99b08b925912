import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { callOp, type OpRequest } from '../../helpers/call-op.ts';
import { updateCompany } from '../../../registry/operations/companies/update-company.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';

describe.each(DB_TARGETS)('idempotency (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestServices(target);
    app = createApp(t.services, registry);
    tenant = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => t?.close());

  const patch = (key: string, body: OpRequest<typeof updateCompany>['body'], idempotencyKey?: string) =>
    callOp(app, updateCompany, {
      params: { companyId: tenant.companyId },
      key,
      body,
      ...(idempotencyKey && { headers: { 'idempotency-key': idempotencyKey } }),
    });
  const auditCount = () => t.services.database.prisma.auditLog.count({ where: { action: 'updateCompany', companyId: tenant.companyId } });

  it('replays the stored result for a repeated key, with Idempotent-Replayed', async () => {
    const before = await auditCount();
    const first = await patch(tenant.key, { name: 'Replay AB' }, 'replay-1');
    const second = await patch(tenant.key, { name: 'Replay AB' }, 'replay-1');
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.data).toEqual(first.body.data);
    expect(second.body.meta.audit).toEqual(first.body.meta.audit);
    expect(second.body.meta.request_id).not.toBe(first.body.meta.request_id);
    expect(await auditCount()).toBe(before + 1);
  });

  it('treats the same body in another key order as the same request', async () => {
    const first = await patch(tenant.key, { name: 'Order AB', entity_type: 'aktiebolag' }, 'order-1');
    const second = await patch(tenant.key, { entity_type: 'aktiebolag', name: 'Order AB' }, 'order-1');
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data).toEqual(first.body.data);
  });

  it('refuses a reused key with a different body (422)', async () => {
    await patch(tenant.key, { name: 'First AB' }, 'reuse-1');
    const reused = await patch(tenant.key, { name: 'Second AB' }, 'reuse-1');
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('scopes keys to the API key record', async () => {
    const other = await makeTenant(t.services.database.prisma);
    const mine = await patch(tenant.key, { name: 'Mine AB' }, 'shared-key');
    const theirs = await callOp(app, updateCompany, {
      params: { companyId: other.companyId },
      key: other.key,
      body: { name: 'Theirs AB' },
      headers: { 'idempotency-key': 'shared-key' },
    });
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.name).toBe('Theirs AB');
  });

  it('does not store failures, so the key can be retried after fixing the request', async () => {
    const bad = await patch(tenant.key, {}, 'fix-me');
    expect(bad.status).toBe(400);
    const fixed = await patch(tenant.key, { name: 'Fixed AB' }, 'fix-me');
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('rejects an idempotency key that is not 1-255 visible ASCII characters', async () => {
    const response = await patch(tenant.key, { name: 'x' }, 'x'.repeat(256));
    expect(response.status).toBe(400);
    expect(response.body.error.details![0]!.path).toBe('header.Idempotency-Key');
  });

  it('reports a request still in progress with 409', async () => {
    // The fingerprint is the server's: a finished request with the same body stores it, and a
    // record still in progress under another key is given that very fingerprint (no re-implementation).
    await patch(tenant.key, { name: 'Busy AB' }, 'busy-probe');
    const db = t.services.database.prisma;
    const probe = await db.idempotencyRecord.findUniqueOrThrow({
      where: { apiKeyId_idempotencyKey: { apiKeyId: tenant.apiKeyId, idempotencyKey: 'busy-probe' } },
    });
    const now = t.services.now();
    // A record left in progress by another request (its lock still held).
    await db.idempotencyRecord.create({
      data: {
        apiKeyId: tenant.apiKeyId,
        idempotencyKey: 'busy-1',
        requestFingerprint: probe.requestFingerprint,
        state: 'in_progress',
        lockedUntil: new Date(now.getTime() + 60_000),
        expiresAt: new Date(now.getTime() + 86_400_000),
      },
    });
    const differentBody = await patch(tenant.key, { name: 'Other AB' }, 'busy-1');
    expect(differentBody.status).toBe(422);
    const sameBody = await patch(tenant.key, { name: 'Busy AB' }, 'busy-1');
    expect(sameBody.status).toBe(409);
    expect(sameBody.body.error.code).toBe('IDEMPOTENCY_IN_PROGRESS');
  });

  it('answers concurrent duplicates with one write: the rest get 409 in progress or a replay', async () => {
    const before = await auditCount();
    const responses = await Promise.all(Array.from({ length: 20 }, () => patch(tenant.key, { name: 'Concurrent AB' }, 'concurrent-1')));
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const fresh = responses.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    for (const conflict of responses.filter((r) => r.status === 409)) {
      expect(conflict.body.error.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    }
    expect(await auditCount()).toBe(before + 1);
  });
});
