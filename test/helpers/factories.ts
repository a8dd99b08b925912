import type { Db } from '../../domain/db/client.ts';
import type { OperationContext, Services } from '../../domain/context.ts';
import { createApiKey } from '../../domain/apikeys/keys.ts';
import { createCompany, createMembership, createUser } from '../../domain/users/admin.ts';
import type { Scope } from '../../domain/kernel/scopes.ts';
import { SCOPES } from '../../domain/kernel/scopes.ts';

let counter = 0;
const unique = (): string => `${Date.now().toString(36)}${(counter++).toString(36)}`;

export interface Tenant {
  userId: string;
  companyId: string;
  key: string;
  apiKeyId: string;
}

export async function makeUser(db: Db): Promise<string> {
  const id = unique();
  return (await createUser(db, { email: `user-${id}@example.test`, name: `User ${id}` })).id;
}

export async function makeCompany(db: Db, options: { livemode?: boolean; archived?: boolean; name?: string } = {}): Promise<string> {
  const { id } = await createCompany(db, {
    name: options.name ?? `Company ${unique()}`,
    orgNumber: '556000-0000',
    livemode: options.livemode ?? false,
  });
  if (options.archived) await db.company.update({ where: { id }, data: { archivedAt: new Date() } });
  return id;
}

export async function makeKey(
  db: Db,
  userId: string,
  options: { scopes?: readonly Scope[]; mode?: 'test' | 'live'; companyId?: string | null; rateLimitPerMinute?: number } = {},
): Promise<{ key: string; id: string }> {
  const created = await createApiKey(db, {
    userId,
    name: 'test key',
    mode: options.mode ?? 'test',
    scopes: [...(options.scopes ?? SCOPES)],
    companyId: options.companyId ?? null,
    rateLimitPerMinute: options.rateLimitPerMinute ?? null,
  });
  return { key: created.key, id: created.id };
}

/** A user who owns one sandbox company, with a test key holding the given scopes (all by default). */
export async function makeTenant(db: Db, scopes?: readonly Scope[]): Promise<Tenant> {
  const userId = await makeUser(db);
  const companyId = await makeCompany(db);
  await createMembership(db, { userId, companyId, role: 'owner' });
  const { key, id } = await makeKey(db, userId, { ...(scopes && { scopes }) });
  return { userId, companyId, key, apiKeyId: id };
}

/** A context with no caller, as the dispatcher has: for calling domain verbs such as emitEvent directly. */
export const systemContext = (services: Services): OperationContext => ({
  services,
  actor: null,
  requestId: 'test',
  db: services.database.prisma,
  inTransaction: false,
  dryRun: false,
});

/**
 * A webhook row written directly (no API, no URL check): for tests that set up deliveries in SQL,
 * and those that run real worker processes (an IP-literal URL needs no DNS in the worker, and the
 * test CA covers IP:127.0.0.1).
 */
export async function makeWebhook(
  services: Pick<Services, 'database' | 'secretBox'>,
  options: { companyId: string; url?: string; eventType?: string; name?: string; disabled?: boolean },
): Promise<string> {
  const hook = await services.database.prisma.webhook.create({
    data: {
      companyId: options.companyId,
      eventType: options.eventType ?? 'company.updated',
      webhookUrl: options.url ?? 'https://hooks.example.com/receive',
      name: options.name ?? 'receiver',
      secretEncrypted: services.secretBox.encrypt('s'.repeat(64)),
      apiVersionPinned: '2026-11-01',
      ...(options.disabled && { disabledAt: new Date(), disabledReason: 'manually_disabled' }),
    },
  });
  return hook.id;
}
