import { defineKind } from '../define-kind.ts';

/** Books the year's result, closes the year and opens the next (jobs/close-fiscal-year.ts). */
export const closeFiscalYearKind = defineKind({
  kind: 'close_fiscal_year',
  scope: 'compliance:write',
  actsWith: ['companies:write', 'companies:read'],
  handler: async (job) => (await import('../jobs/close-fiscal-year.ts')).closeFiscalYearJob(job),
});
