import { z } from 'zod';
import { Account, AccountCreateBody, AccountListQuery, AccountUpdateBody } from '../../../domain/ledger/schemas.ts';
import { createAccount as create, listAccounts as list, updateAccount as update } from '../../../domain/ledger/accounts.ts';
import { COMPANY_ID, accountExample } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { AccountParams, CompanyParams } from './params.ts';

export const listAccounts = defineOperation({
  id: 'listAccounts',
  group: 'ledger',
  method: 'GET',
  path: '/companies/{companyId}/accounts',
  summary: 'List the chart of accounts',
  description: "The company's BAS chart of accounts in number order, filtered by number range, type or active. Accounts are addressed by number.",
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: [],
  input: { params: CompanyParams, query: AccountListQuery },
  output: z.object({ accounts: z.array(Account) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { number_from: '1900', number_to: '1999' }, response: { accounts: [accountExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => ({ data: { accounts: await list(ctx, params.companyId, query) } }),
});

export const createAccount = defineOperation({
  id: 'createAccount',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/accounts',
  summary: 'Add an account',
  description: 'Adds a BAS account (number 1000-8999; the type follows the class). Emits account.created.',
  auth: { scope: 'companies:write' },
  risk: 'L1',
  idempotent: false,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create', 'emits_event'],
  auditTarget: 'account',
  errors: ['ACCOUNT_EXISTS'],
  input: { params: CompanyParams, body: AccountCreateBody },
  output: Account,
  status: 201,
  examples: {
    params: { companyId: COMPANY_ID },
    body: { number: '1940', name: 'Sparkonto' },
    response: { ...accountExample, number: '1940', name: 'Sparkonto' },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await create(ctx, params.companyId, body) }),
});

export const updateAccount = defineOperation({
  id: 'updateAccount',
  group: 'ledger',
  method: 'PATCH',
  path: '/companies/{companyId}/accounts/{accountNumber}',
  summary: 'Update an account',
  description: 'Renames an account, (de)activates it or sets its VAT code; the number and type never change. Emits account.updated.',
  auth: { scope: 'companies:write' },
  risk: 'L1',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'account',
  errors: [],
  input: { params: AccountParams, body: AccountUpdateBody },
  output: Account,
  status: 200,
  examples: {
    params: { companyId: COMPANY_ID, accountNumber: '1930' },
    body: { name: 'Företagskonto Handelsbanken' },
    response: { ...accountExample, name: 'Företagskonto Handelsbanken' },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await update(ctx, params.companyId, params.accountNumber, body) }),
});
