import { defineKind } from '../define-kind.ts';

/** Imports an uploaded SIE 4 file in checkpointed batches (jobs/import-sie.ts). */
export const sieImportKind = defineKind({
  kind: 'sie_import',
  scope: 'companies:write',
  actsWith: ['companies:read'],
  heavy: true,
  handler: async (job) => (await import('../jobs/import-sie.ts')).importSieJob(job),
});
