import { JournalEntry } from '../../../domain/ledger/schemas.ts';
import { getJournalEntry as get } from '../../../domain/ledger/entries.ts';
import { COMPANY_ID, ENTRY_ID, journalEntryExample } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { EntryParams } from './params.ts';

export const getJournalEntry = defineOperation({
  id: 'getJournalEntry',
  errors: [],
  group: 'ledger',
  method: 'GET',
  path: '/companies/{companyId}/journal-entries/{entryId}',
  summary: 'Get a journal entry',
  description: 'One entry with its lines, voucher number and reversal links.',
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  input: { params: EntryParams },
  output: JournalEntry,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, entryId: ENTRY_ID }, response: journalEntryExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId, params.entryId) }),
});
