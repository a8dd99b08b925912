import { JournalEntry, ReverseBody } from '../../../domain/ledger/schemas.ts';
import { reverseJournalEntry as reverse } from '../../../domain/ledger/commit.ts';
import { COMPANY_ID, ENTRY_ID, journalEntryExample } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { EntryParams } from './params.ts';

export const reverseJournalEntry = defineOperation({
  id: 'reverseJournalEntry',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/journal-entries/{entryId}/reverse',
  summary: 'Reverse a committed journal entry',
  description:
    'Corrects a committed entry by booking a new one with debits and credits swapped (today, or the given date in an open period). ' +
    'Returns the reversal. At most once per entry.',
  emits: ['journal_entry.committed', 'journal_entry.reversed'],
  auth: { scope: 'companies:write' },
  risk: 'L2',
  idempotent: false,
  reversible: false,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create', 'emits_event'],
  auditTarget: 'journal_entry',
  errors: ['ENTRY_NOT_COMMITTED', 'ENTRY_ALREADY_REVERSED', 'ACCOUNT_INACTIVE', 'NO_FISCAL_YEAR', 'PERIOD_LOCKED', 'FISCAL_YEAR_CLOSED'],
  input: { params: EntryParams, body: ReverseBody },
  output: JournalEntry,
  status: 201,
  examples: {
    params: { companyId: COMPANY_ID, entryId: ENTRY_ID },
    body: { date: '2026-11-20' },
    response: {
      ...journalEntryExample,
      id: '3e6a9c2d-8b4f-4d17-9e3a-5c0b8f2d7a61',
      number: 150,
      voucher: 'A150',
      date: '2026-11-20',
      description: 'Reversal of A142: Kontorsmaterial, Clas Ohlson',
      lines: journalEntryExample.lines.map((line) => ({ ...line, debit: line.credit, credit: line.debit })),
      reverses_id: ENTRY_ID,
    },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await reverse(ctx, params.companyId, params.entryId, body) }),
});
