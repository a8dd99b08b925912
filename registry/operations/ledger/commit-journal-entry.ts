import { JournalEntry } from '../../../domain/ledger/schemas.ts';
import { commitJournalEntry as commit } from '../../../domain/ledger/commit.ts';
import { COMPANY_ID, ENTRY_ID, journalEntryExample } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { EntryParams } from './params.ts';

export const commitJournalEntry = defineOperation({
  id: 'commitJournalEntry',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/journal-entries/{entryId}/commit',
  summary: 'Commit a journal entry',
  description:
    'Books a draft: it must balance, use active accounts and fall in an open period of a fiscal year. It gets the next gapless number ' +
    'of its series and never changes again. A dry run shows the number it would get.',
  emits: ['journal_entry.committed'],
  auth: { scope: 'companies:write' },
  risk: 'L2',
  idempotent: false,
  reversible: false,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'journal_entry',
  errors: ['ENTRY_NOT_DRAFT', 'ENTRY_UNBALANCED', 'ACCOUNT_INACTIVE', 'NO_FISCAL_YEAR', 'PERIOD_LOCKED', 'FISCAL_YEAR_CLOSED'],
  input: { params: EntryParams },
  output: JournalEntry,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, entryId: ENTRY_ID }, response: journalEntryExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await commit(ctx, params.companyId, params.entryId) }),
});
