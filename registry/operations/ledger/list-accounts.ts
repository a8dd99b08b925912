import { z } from 'zod';
import { Account, AccountListQuery } from '../../../domain/ledger/schemas.ts';
import { listAccounts as list } from '../../../domain/ledger/accounts.ts';
import { COMPANY_ID, accountExample } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const listAccounts = defineOperation({
  id: 'listAccounts',
  group: 'ledger',
  method: 'GET',
  path: '/companies/{companyId}/accounts',
  summary: 'List the chart of accounts',
  description:
    "The company's BAS chart of accounts in number order, filtered by number range, type or active. Accounts are addressed by number. Cursor-paginated.",
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: [],
  input: { params: CompanyParams, query: AccountListQuery },
  output: z.object({ accounts: z.array(Account) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { number_from: '1900', number_to: '1999' }, response: { accounts: [accountExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { accounts, pagination } = await list(ctx, params.companyId, query);
    return { data: { accounts }, pagination };
  },
});
