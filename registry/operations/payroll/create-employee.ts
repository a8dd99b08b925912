import { EmployeeCreateBody } from '../../../domain/payroll/schemas.ts';
import { createEmployee as create } from '../../../domain/payroll/employees.ts';
import { employeeExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';
import { write } from './traits.ts';

export const createEmployee = defineOperation({
  ...write,
  id: 'createEmployee',
  errors: [],
  method: 'POST',
  path: '/companies/{companyId}/employees',
  summary: 'Add an employee',
  description:
    'Adds an employee: name, personal identity number (checked), employment dates, monthly salary in öre and preliminary tax as tax_rate (percent) or tax_amount (öre a month).',
  idempotent: false,
  sideEffects: ['create'],
  input: { params: CompanyParams, body: EmployeeCreateBody },
  status: 201,
  examples: {
    params: { companyId: COMPANY_ID },
    body: {
      name: 'Anna Lindqvist',
      personal_identity_number: '19811218-9876',
      employment_start: '2024-03-01',
      monthly_salary: 4_200_000,
      tax_rate: 30,
      workplace_address: 'Storgatan 1',
      workplace_city: 'Malmö',
    },
    response: employeeExample,
  },
  handler: async (ctx, { params, body }) => ({ data: await create(ctx, params.companyId, body) }),
});
