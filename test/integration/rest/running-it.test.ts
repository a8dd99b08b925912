import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS } from '../../helpers/db.ts';
import { dispatchHarness, type DispatchHarness } from '../../helpers/dispatch.ts';
import { startReceiver, type Receiver } from '../../helpers/https-receiver.ts';
import { call } from '../../helpers/http.ts';
import { connectInProcess } from '../../helpers/mcp-client.ts';
import { tick } from '../../../dispatcher/tick.ts';
import { startWorker } from '../../../dispatcher/worker.ts';

/**
 * Running it (issue 11): one access line per request, one line per delivery outcome, and a
 * health answer that says whether deliveries are piling up and whether this process sends them.
 */

describe.each(DB_TARGETS)('logs and health (%s)', (target) => {
  let h: DispatchHarness;
  let receiver: Receiver;

  beforeAll(async () => {
    h = await dispatchHarness(target);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  const lines = (event: string) => h.t.logs.lines.filter((line) => line.event === event);

  it('writes one access line per request: method, route template, status, duration, request id, key id — never the key', async () => {
    const before = lines('request').length;
    const responses = [
      await call(h.app, 'GET', `/api/v1/companies/${h.tenant.companyId}/webhooks`, { key: h.tenant.key }),
      await call(h.app, 'GET', '/api/v1/companies', { headers: { authorization: 'Bearer sk_test_wrong' } }),
      await call(h.app, 'GET', '/api/v1/no-such-thing'),
      await call(h.app, 'GET', '/api/v1/health'),
    ];
    const client = await connectInProcess(h.app, { key: h.tenant.key });
    await client.listTools();
    await client.close();

    const written = lines('request').slice(before);
    const byRequest = new Map(written.map((line) => [line.request_id, line]));
    expect(responses.map((r) => byRequest.get(r.headers.get('x-request-id')))).toEqual([
      expect.objectContaining({ method: 'GET', route: '/api/v1/companies/{companyId}/webhooks', status: 200, api_key_id: h.tenant.apiKeyId }),
      expect.objectContaining({ method: 'GET', route: '/api/v1/companies', status: 401, api_key_id: null }),
      expect.objectContaining({ method: 'GET', route: null, status: 404, api_key_id: null }),
      expect.objectContaining({ method: 'GET', route: '/api/v1/health', status: 200, api_key_id: null }),
    ]);
    for (const line of written) expect(line.duration_ms).toEqual(expect.any(Number));
    // MCP's JSON-RPC POSTs are requests too, attributed to their key (the client's GET probe is refused before auth).
    const mcp = written.filter((line) => line.route === '/mcp' && line.method === 'POST');
    expect(mcp.length).toBeGreaterThanOrEqual(2);
    for (const line of mcp) expect(line.api_key_id).toBe(h.tenant.apiKeyId);
    // Exactly one line per request id.
    expect(byRequest.size).toBe(written.length);
    expect(h.t.logs.raw.join('\n')).not.toContain(h.tenant.key);
  });

  it('writes one line per delivery outcome, and health reports the backlog and whether a loop runs here', async () => {
    const hook = await h.createWebhook(receiver.url('/ok'));
    const failing = await h.createWebhook(receiver.url('/failing'));
    receiver.setHandler((request) => (request.url === '/failing' ? { status: 503 } : { status: 200 }));

    const empty = await call(h.app, 'GET', '/api/v1/health');
    expect(empty.body.data.deliveries).toEqual({ due: 0, oldest_due_seconds: null, waiting_for_key: 0, loop_in_process: false });

    await h.touchCompany(); // one company.updated: a delivery to each webhook, due now
    h.clock.advance(90_000);
    const backlog = await call(h.app, 'GET', '/api/v1/health');
    expect(backlog.status).toBe(200);
    expect(backlog.body.data.deliveries).toEqual({ due: 2, oldest_due_seconds: 90, waiting_for_key: 0, loop_in_process: false });

    const before = lines('delivery').length;
    await tick(h.t.services, h.sender);
    const outcomes = lines('delivery').slice(before);
    expect(outcomes).toHaveLength(2);
    const byWebhook = new Map(outcomes.map((line) => [line.webhook_id, line]));
    expect(byWebhook.get(hook.id)).toMatchObject({
      outcome: 'delivered',
      attempt: 1,
      response_status: 200,
      event_type: 'company.updated',
      company_id: h.tenant.companyId,
      next_attempt_at: null,
    });
    expect(byWebhook.get(failing.id)).toMatchObject({ outcome: 'failed', attempt: 1, response_status: 503, next_attempt_at: expect.any(String) });
    expect(JSON.stringify(outcomes)).not.toContain(hook.secret);

    // The failed one waits for its retry: nothing is due now.
    expect((await call(h.app, 'GET', '/api/v1/health')).body.data.deliveries.due).toBe(0);

    const worker = startWorker(h.t.services, { sender: h.sender, idlePollMs: 60_000 });
    expect((await call(h.app, 'GET', '/api/v1/health')).body.data.deliveries.loop_in_process).toBe(true);
    await worker.stop();
    expect((await call(h.app, 'GET', '/api/v1/health')).body.data.deliveries.loop_in_process).toBe(false);
  });
});
