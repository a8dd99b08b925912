import { Account, AccountCreateBody } from '../../../domain/ledger/schemas.ts';
import { createAccount as create } from '../../../domain/ledger/accounts.ts';
import { COMPANY_ID, accountExample } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const createAccount = defineOperation({
  id: 'createAccount',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/accounts',
  summary: 'Add an account',
  description: 'Adds a BAS account (number 1000-8999; the type follows the class).',
  emits: ['account.created'],
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
