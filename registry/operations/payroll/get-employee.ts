import { Employee } from '../../../domain/payroll/schemas.ts';
import { getEmployee as get } from '../../../domain/payroll/employees.ts';
import { EMPLOYEE_ID, employeeExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { EmployeeParams } from './params.ts';

export const getEmployee = defineOperation({
  id: 'getEmployee',
  errors: [],
  group: 'payroll',
  method: 'GET',
  path: '/companies/{companyId}/employees/{employeeId}',
  summary: 'Get an employee',
  description: 'One employee, with the full personal identity number (the only place it is shown).',
  auth: { scope: 'payroll:read' },
  ...READ_ONLY,
  input: { params: EmployeeParams },
  output: Employee,
  status: 200,
  examples: {
    params: { companyId: COMPANY_ID, employeeId: EMPLOYEE_ID },
    response: { ...employeeExample, personal_identity_number: '19811218-9876' },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId, params.employeeId) }),
});
