import { JournalEntry, JournalEntryCreateBody } from '../../../domain/ledger/schemas.ts';
import { createJournalEntry as create } from '../../../domain/ledger/entries.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';
import { draftExample } from './examples.ts';

export const createJournalEntry = defineOperation({
  id: 'createJournalEntry',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/journal-entries',
  summary: 'Create a draft journal entry',
  description:
    'Drafts a verification: a date, a description and two or more lines, each a debit or credit on an account. Not in the books until commitJournalEntry.',
  emits: ['journal_entry.created'],
  auth: { scope: 'companies:write' },
  risk: 'L1',
  idempotent: false,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create', 'emits_event'],
  auditTarget: 'journal_entry',
  errors: ['ACCOUNT_UNKNOWN', 'ACCOUNT_INACTIVE'],
  input: { params: CompanyParams, body: JournalEntryCreateBody },
  output: JournalEntry,
  status: 201,
  examples: {
    params: { companyId: COMPANY_ID },
    body: {
      date: '2026-11-12',
      description: 'Kontorsmaterial, Clas Ohlson',
      lines: [
        { account: '6110', debit: 40_000, description: 'Kontorsmaterial' },
        { account: '2641', debit: 10_000 },
        { account: '1930', credit: 50_000 },
      ],
    },
    response: draftExample,
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await create(ctx, params.companyId, body) }),
});
