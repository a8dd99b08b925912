import { deleteJournalEntry as remove } from '../../../domain/ledger/entries.ts';
import { COMPANY_ID, ENTRY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { EntryParams } from './params.ts';

export const deleteJournalEntry = defineOperation({
  id: 'deleteJournalEntry',
  group: 'ledger',
  method: 'DELETE',
  path: '/companies/{companyId}/journal-entries/{entryId}',
  summary: 'Delete a draft journal entry',
  description: 'Deletes a draft. Committed entries are never deleted: reverse them instead.',
  auth: { scope: 'companies:write' },
  risk: 'L1',
  idempotent: false,
  reversible: false,
  dryRun: false,
  idempotencyKey: 'none',
  sideEffects: ['delete'],
  auditTarget: 'journal_entry',
  errors: ['ENTRY_NOT_DRAFT'],
  input: { params: EntryParams },
  output: null,
  status: 204,
  examples: { params: { companyId: COMPANY_ID, entryId: ENTRY_ID } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => {
    await remove(ctx, params.companyId, params.entryId);
    return { data: null };
  },
});
