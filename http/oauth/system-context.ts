import type { OperationContext, Services } from '../../domain/context.ts';

/** A context with no caller, for what the authorization server does on its own (revoking a reused refresh token's grant). */
export const systemContextFor = (services: Services): OperationContext => ({
  services,
  actor: null,
  requestId: 'oauth',
  db: services.database.prisma,
  inTransaction: false,
  dryRun: false,
});
