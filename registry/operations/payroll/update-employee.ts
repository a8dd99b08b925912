import { EmployeeUpdateBody } from '../../../domain/payroll/schemas.ts';
import { updateEmployee as update } from '../../../domain/payroll/employees.ts';
import { EMPLOYEE_ID, employeeExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { EmployeeParams } from './params.ts';
import { write } from './traits.ts';

export const updateEmployee = defineOperation({
  ...write,
  id: 'updateEmployee',
  errors: [],
  method: 'PATCH',
  path: '/companies/{companyId}/employees/{employeeId}',
  summary: 'Update an employee',
  description: 'Changes any employee field; tax_rate and tax_amount replace each other. Send only what changes.',
  idempotent: true,
  sideEffects: ['update'],
  input: { params: EmployeeParams, body: EmployeeUpdateBody },
  status: 200,
  examples: {
    params: { companyId: COMPANY_ID, employeeId: EMPLOYEE_ID },
    body: { monthly_salary: 4_400_000 },
    response: { ...employeeExample, monthly_salary: 4_400_000 },
  },
  handler: async (ctx, { params, body }) => ({ data: await update(ctx, params.companyId, params.employeeId, body) }),
});
