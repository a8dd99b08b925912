import { z } from 'zod';
import { JournalEntry, JournalEntryCreateBody, JournalEntryListQuery, ReverseBody } from '../../../domain/ledger/schemas.ts';
import {
  createJournalEntry as create,
  deleteJournalEntry as remove,
  getJournalEntry as get,
  listJournalEntries as list,
} from '../../../domain/ledger/entries.ts';
import { commitJournalEntry as commit, reverseJournalEntry as reverse } from '../../../domain/ledger/commit.ts';
import { COMPANY_ID, ENTRY_ID, journalEntryExample } from '../../../domain/ledger/examples.ts';
import { PaginationQuery } from '../../../domain/kernel/pagination.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams, EntryParams } from './params.ts';

const draftExample = {
  ...journalEntryExample,
  status: 'draft',
  number: null,
  voucher: null,
  fiscal_year_id: null,
  period_id: null,
  committed_at: null,
} as const;

export const createJournalEntry = defineOperation({
  id: 'createJournalEntry',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/journal-entries',
  summary: 'Create a draft journal entry',
  description:
    'Drafts a verification: a date, a description and at least two lines, each a debit or a credit in öre on an account number. ' +
    'Nothing is in the books until commitJournalEntry. Emits journal_entry.created.',
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

export const listJournalEntries = defineOperation({
  id: 'listJournalEntries',
  errors: [],
  group: 'ledger',
  method: 'GET',
  path: '/companies/{companyId}/journal-entries',
  summary: 'List journal entries',
  description: 'Entries newest first (date, then creation), filtered by date range, account, status or series. Cursor-paginated.',
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: JournalEntryListQuery.extend(PaginationQuery.shape) },
  output: z.object({ journal_entries: z.array(JournalEntry) }),
  status: 200,
  examples: {
    params: { companyId: COMPANY_ID },
    query: { date_from: '2026-11-01', status: 'committed' },
    response: { journal_entries: [journalEntryExample] },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { entries, pagination } = await list(ctx, params.companyId, query);
    return { data: { journal_entries: entries }, pagination };
  },
});

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

export const commitJournalEntry = defineOperation({
  id: 'commitJournalEntry',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/journal-entries/{entryId}/commit',
  summary: 'Commit a journal entry',
  description:
    'Books a draft: it must balance, use active accounts and fall in an open period of a fiscal year. It gets the next gapless number ' +
    'of its series and never changes again. A dry run shows the number it would get. Emits journal_entry.committed.',
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

export const reverseJournalEntry = defineOperation({
  id: 'reverseJournalEntry',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/journal-entries/{entryId}/reverse',
  summary: 'Reverse a committed journal entry',
  description:
    'Corrects a committed entry by booking a new one with debits and credits swapped (today, or the given date in an open period). ' +
    'Returns the reversal. At most once per entry. Emits journal_entry.committed and journal_entry.reversed.',
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
