import { z } from 'zod';
import { JournalEntry, JournalEntryListQuery } from '../../../domain/ledger/schemas.ts';
import { listJournalEntries as list } from '../../../domain/ledger/entries.ts';
import { COMPANY_ID, journalEntryExample } from '../../../domain/ledger/examples.ts';
import { PaginationQuery } from '../../../domain/kernel/pagination.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

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
