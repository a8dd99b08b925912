import { mkdtempSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DB_TARGETS, TEST_ENCRYPTION_KEY, createPostgresDatabase, type DbTarget } from '../helpers/db.ts';
import { makeCompany, makeTenant, systemContext } from '../helpers/factories.ts';
import { runCli, startCli, startEntry, type RunningProcess } from '../helpers/process.ts';
import { startLocalServer, type LocalServer } from '../helpers/discovery.ts';
import { createServices } from '../../domain/bootstrap.ts';
import { loadConfig } from '../../domain/kernel/config.ts';
import { withTransaction } from '../../domain/context.ts';
import { createMembership } from '../../domain/users/admin.ts';
import { emitEvent } from '../../domain/events/emit.ts';
import { EVENT_CATALOG, EVENT_TYPES } from '../../domain/events/types.ts';
import { verifySignature } from '../../dispatcher/sign.ts';
import { registry } from '../../registry/index.ts';
import { CLI_EXIT, cliFlagName, cliSubcommand, hasCliSurface, type FieldLocation } from '../../registry/cli-command.ts';
import { ERROR_CATALOG } from '../../registry/error-catalog.ts';

/**
 * The `accounting` CLI as a user runs it: the package's bin under plain node (nothing from
 * node_modules/.bin on PATH) against a real server process, on each database engine.
 */

const FEED_EVENTS = 2500;

/** Every input the API requires of an operation, read from its zod schemas (not from the CLI). */
function requiredFlags(op: (typeof registry.operations)[number]): string[] {
  const parts: [FieldLocation, z.ZodType | undefined][] = [
    ['path', op.input.params],
    ['query', op.input.query],
    ['body', op.input.body],
  ];
  return parts.flatMap(([location, schema]) => {
    if (!schema) return [];
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: object; required?: string[] };
    const names = location === 'path' ? Object.keys(json.properties ?? {}) : (json.required ?? []);
    return names.map((field) => `--${cliFlagName(field, location)}`);
  });
}

const cliOps = registry.operations.filter(hasCliSurface);
// A process start per command, on a machine shared with other suites: the budget grows with the registry.
const HELP_WALK_TIMEOUT = 60_000 + cliOps.length * 8_000;

// Help needs no server (nor a database), so the walk runs once, not per engine.
describe('accounting --help, walked over the registry', () => {
  it(
    'has a command for every cli operation, and each --help names every required input',
    async () => {
      const root = await runCli(['--help'], {});
      expect(root.code).toBe(0);
      expect(cliOps.length).toBeGreaterThan(10);
      const missing = cliOps.filter((op) => !root.stdout.includes(`${op.group} ${cliSubcommand(op)} `));
      expect(missing.map((op) => op.id)).toEqual([]);
      // Operations without the surface get no command.
      for (const op of registry.operations.filter((o) => !hasCliSurface(o))) expect(root.stdout).not.toContain(`${op.group} ${cliSubcommand(op)} `);

      // Four at a time: each is a process start.
      for (let i = 0; i < cliOps.length; i += 4) {
        await Promise.all(
          cliOps.slice(i, i + 4).map(async (op) => {
            const help = await runCli([op.group, cliSubcommand(op), '--help'], {});
            expect(help.code, `${op.id}: ${help.stderr}`).toBe(0);
            expect(help.stdout).toContain(`Usage: accounting ${op.group} ${cliSubcommand(op)}`);
            expect(help.stdout).toContain(op.summary);
            for (const flag of requiredFlags(op)) expect(help.stdout, `${op.id} --help names ${flag}`).toMatch(new RegExp(`${flag}(?![\\w-])`));
            if (op.idempotencyKey !== 'none') expect(help.stdout).toContain('--idempotency-key');
            if (op.dryRun) expect(help.stdout).toContain('--dry-run');
          }),
        );
      }
    },
    HELP_WALK_TIMEOUT,
  );
});

describe.each(DB_TARGETS)('accounting CLI against a running server (%s)', (target: DbTarget) => {
  let server: RunningProcess;
  let env: Record<string, string>;
  let companyId: string;
  let feedCompanyId: string;
  const feedIds: string[] = [];
  const running: RunningProcess[] = [];
  let dropDatabase: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    // The data is prepared in this process, then the server process is started on it.
    const serverEnv: Record<string, string> = {
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'info',
      PORT: '0',
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8',
    };
    if (target === 'postgres') {
      const db = await createPostgresDatabase();
      dropDatabase = db.drop;
      Object.assign(serverEnv, { DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl });
    } else {
      serverEnv.DATA_DIR = mkdtempSync(join(tmpdir(), 'acct-cli-e2e-'));
    }
    const services = await createServices(loadConfig({ ...serverEnv, LOG_LEVEL: 'silent' }));
    const db = services.database.prisma;
    const tenant = await makeTenant(db);
    companyId = tenant.companyId;
    feedCompanyId = await makeCompany(db, { name: 'Feed AB' });
    await createMembership(db, { userId: tenant.userId, companyId: feedCompanyId, role: 'owner' });
    // The feed: 2,500 events through emitEvent, as writes emit them (batched only for speed).
    const ctx = systemContext(services);
    for (let batch = 0; batch < FEED_EVENTS / 500; batch++) {
      await withTransaction(ctx, async (tx) => {
        for (let i = 0; i < 500; i++) {
          const type = EVENT_TYPES[(batch * 500 + i) % EVENT_TYPES.length]!;
          const example = EVENT_CATALOG[type].example as Record<string, unknown>;
          const object = type.startsWith('company.') ? { ...example, id: feedCompanyId } : { ...example, company_id: feedCompanyId };
          feedIds.push((await emitEvent(tx, feedCompanyId, type, object, null)).eventId);
        }
      });
    }
    await services.database.close();

    server = startEntry('cli/serve.ts', serverEnv);
    running.push(server);
    const [, port] = await server.waitFor(/"port":(\d+)/);
    env = { ACCOUNTING_API_URL: `http://127.0.0.1:${port}`, ACCOUNTING_API_KEY: tenant.key };
  }, 300_000);

  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await dropDatabase();
  });

  it('creates a webhook, printing the generated idempotency key and the secret once', async () => {
    const created = await runCli(
      [
        'webhooks',
        'create',
        '--company',
        companyId,
        '--event-type',
        'company.updated',
        '--webhook-url',
        'https://localhost:9/hook',
        '--name',
        'cli test',
        '--json',
      ],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const webhook = JSON.parse(created.stdout);
    expect(webhook).toMatchObject({ company_id: companyId, event_type: 'company.updated', name: 'cli test' });
    expect(webhook.secret).toMatch(/^[0-9a-f]{64}$/);
    const [, key] = created.stderr.match(/Idempotency key: ([0-9a-f-]{36})/)!;

    // Retrying with the printed key replays the same webhook instead of creating a second one.
    const replay = await runCli(
      [
        'webhooks',
        'create',
        '--company',
        companyId,
        '--event-type',
        'company.updated',
        '--webhook-url',
        'https://localhost:9/hook',
        '--name',
        'cli test',
        '--json',
        '--idempotency-key',
        key!,
      ],
      env,
    );
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout).id).toBe(webhook.id);
    expect(replay.stderr).toContain('Replayed');
    const listed = JSON.parse((await runCli(['webhooks', 'list', '--company', companyId, '--json'], env)).stdout);
    expect(listed.webhooks.map((w: { id: string }) => w.id)).toEqual([webhook.id]);

    // A whole body from stdin, and from a file with a flag overriding one of its fields.
    const fromStdin = await runCli(['webhooks', 'update', '--company', companyId, '--id', webhook.id, '--data', '-', '--json'], env, '{"name":"from stdin"}');
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout).name).toBe('from stdin');
    const bodyFile = join(mkdtempSync(join(tmpdir(), 'acct-cli-body-')), 'body.json');
    writeFileSync(bodyFile, JSON.stringify({ name: 'from file', description: 'kept' }));
    const fromFile = await runCli(
      ['webhooks', 'update', '--company', companyId, '--id', webhook.id, '--data', `@${bodyFile}`, '--name', 'flag wins', '--json'],
      env,
    );
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ name: 'flag wins', description: 'kept' });

    // A dry run validates and writes nothing.
    const dry = await runCli(
      ['webhooks', 'create', '--company', companyId, '--event-type', 'period.locked', '--webhook-url', 'https://localhost:9/dry', '--name', 'dry', '--dry-run'],
      env,
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('Dry run');
    expect(JSON.parse((await runCli(['webhooks', 'list', '--company', companyId, '--json'], env)).stdout).webhooks).toHaveLength(1);
  }, 120_000);

  it('lists companies with --json as exactly the data, and as a table on request of a person', async () => {
    const listed = await runCli(['companies', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    const data = JSON.parse(listed.stdout);
    expect(data.companies.map((c: { id: string }) => c.id).sort()).toEqual([companyId, feedCompanyId].sort());
    const table = await runCli(['companies', 'list'], env);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME/);
    expect(table.stdout).toContain('Feed AB');
  }, 60_000);

  it('exits by class: validation 5 with the recovery hint, missing key 3, unknown id 4, bad usage 2', async () => {
    const invalid = await runCli(
      ['webhooks', 'create', '--company', companyId, '--event-type', 'invoice.paid', '--webhook-url', 'https://localhost:9/x', '--name', 'x'],
      env,
    );
    expect(invalid.code).toBe(CLI_EXIT.validation);
    expect(invalid.stderr).toContain(ERROR_CATALOG.VALIDATION_ERROR.recoveryHint);
    expect(invalid.stderr).toContain('body.event_type');
    expect(invalid.stderr).toMatch(/Docs: https?:\/\/\S+\/docs\/errors#VALIDATION_ERROR/);
    expect(invalid.stdout).toBe('');

    const noKey = await runCli(['companies', 'list'], { ACCOUNTING_API_URL: env.ACCOUNTING_API_URL! });
    expect(noKey.code).toBe(CLI_EXIT.auth);
    expect(noKey.stderr).toContain(ERROR_CATALOG.UNAUTHENTICATED.recoveryHint);
    expect(noKey.stderr).toContain('ACCOUNTING_API_KEY');

    const unknown = await runCli(['webhooks', 'get', '--company', companyId, '--id', '00000000-0000-4000-8000-000000000000'], env);
    expect(unknown.code).toBe(CLI_EXIT.notFound);

    const badFlag = await runCli(['webhooks', 'list', '--company', companyId, '--colour', 'red'], env);
    expect(badFlag.code).toBe(CLI_EXIT.usage);
    expect(badFlag.stderr).toContain('Unknown flag --colour');

    const adminCommand = await runCli(['key', 'create'], env);
    expect(adminCommand.code).toBe(CLI_EXIT.usage);
    expect(adminCommand.stderr).toContain('npm run admin');
  }, 120_000);

  it('follows the cursor through 2,500 events with --all, progress on stderr', async () => {
    const all = await runCli(['events', 'list', '--company', feedCompanyId, '--all', '--json'], env);
    expect(all.code, all.stderr).toBe(0);
    const { events } = JSON.parse(all.stdout) as { events: { id: string }[] };
    expect(events.length).toBe(FEED_EVENTS);
    expect(new Set(events.map((e) => e.id)).size).toBe(FEED_EVENTS);
    expect(new Set(events.map((e) => e.id))).toEqual(new Set(feedIds));
    // Pages of the maximum size (200): 13 pages, one progress line each.
    const progress = all.stderr.trim().split('\n');
    expect(progress).toHaveLength(Math.ceil(FEED_EVENTS / 200));
    expect(progress.at(-1)).toBe(`Fetched ${FEED_EVENTS} events (page 13), done.`);
  }, 120_000);

  it('listen forwards an event emitted through the API to a local receiver, signed as deliveries are', async () => {
    const received: { headers: IncomingMessage['headers']; body: Buffer }[] = [];
    const receiver: LocalServer = await startLocalServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks) });
        response.writeHead(202).end();
      });
    });
    try {
      const listener = startCli(['listen', '--forward-to', `${receiver.url}/hook`, '--company', companyId, '--events', 'company.updated'], env);
      running.push(listener);
      const [, secret] = await listener.waitFor(/Signing secret: ([0-9a-f]{64})/);

      const renamed = await runCli(['companies', 'update', '--company', companyId, '--name', 'Renamed by the CLI'], env);
      expect(renamed.code, renamed.stderr).toBe(0);
      // The listener's line names the event it forwarded: checked against the delivery below.
      const [, forwardedEventId] = await listener.waitFor(/company\.updated\s+(\S+)\s+-> 202 ok/);

      const delivery = received.find((r) => JSON.parse(r.body.toString()).data.object.name === 'Renamed by the CLI')!;
      expect(delivery).toBeDefined();
      expect(verifySignature(delivery.headers['x-service-signature'] as string, delivery.body, secret!)).toEqual({ ok: true, timestamp: expect.any(Number) });
      expect(verifySignature(delivery.headers['x-service-signature'] as string, delivery.body, 'f'.repeat(64)).ok).toBe(false);
      const event = JSON.parse(delivery.body.toString());
      expect(delivery.headers['x-service-event-type']).toBe('company.updated');
      expect(delivery.headers['x-service-event-id']).toBe(event.id);
      expect(forwardedEventId).toBe(event.id);
      expect(delivery.headers['x-service-delivery-id']).toMatch(/^[0-9a-f-]{36}$/);
      // The very event the feed holds.
      const stored = await runCli(['events', 'get', '--company', companyId, '--event', event.id, '--json'], env);
      expect(JSON.parse(stored.stdout)).toEqual(event);

      listener.child.kill('SIGINT');
      const [code] = (await once(listener.child, 'exit')) as [number];
      expect(code).toBe(0);
      expect(listener.stderr()).toContain('Stopped.');
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
