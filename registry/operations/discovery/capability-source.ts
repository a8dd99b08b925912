import { lookupCapability } from '../../../domain/capabilities/lookup.ts';
import type { CapabilityRecord, LocalCapabilities } from '../../../domain/capabilities/record.ts';
import type { OperationContext } from '../../../domain/context.ts';
import { DomainError } from '../../../domain/kernel/errors.ts';
import { localCapabilities } from '../../capabilities.ts';

/**
 * The local mirror: every registered operation's record, built on first use. The registry lists
 * these operations too, so it is read when first needed rather than at import time.
 */
let local: LocalCapabilities | undefined;
export async function localMirror(): Promise<LocalCapabilities> {
  local ??= localCapabilities((await import('../../index.ts')).registry.operations);
  return local;
}

/** Upstream first (CAPABILITY_REGISTRY_URL), the local record as fallback; unknown ids are 404. */
export async function findCapability(ctx: OperationContext, id: string): Promise<CapabilityRecord> {
  const { config, logger } = ctx.services;
  const result = await lookupCapability(id, await localMirror(), {
    baseUrl: config.CAPABILITY_REGISTRY_URL,
    timeoutMs: config.CAPABILITY_REGISTRY_TIMEOUT_MS,
    logger,
  });
  if (!result.found) throw new DomainError('NOT_FOUND', { message: 'No such capability.' });
  return result.record;
}
