import { Account, AccountUpdateBody } from '../../../domain/ledger/schemas.ts';
import { updateAccount as update } from '../../../domain/ledger/accounts.ts';
import { COMPANY_ID, accountExample } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { AccountParams } from './params.ts';

export const updateAccount = defineOperation({
  id: 'updateAccount',
  group: 'ledger',
  method: 'PATCH',
  path: '/companies/{companyId}/accounts/{accountNumber}',
  summary: 'Update an account',
  description: 'Renames an account, (de)activates it or sets its VAT code; the number and type never change.',
  emits: ['account.updated'],
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
