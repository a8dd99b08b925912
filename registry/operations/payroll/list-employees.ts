import { z } from 'zod';
import { Employee } from '../../../domain/payroll/schemas.ts';
import { listEmployees as list } from '../../../domain/payroll/employees.ts';
import { employeeExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { PaginationQuery } from '../../../domain/kernel/pagination.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const listEmployees = defineOperation({
  id: 'listEmployees',
  errors: [],
  group: 'payroll',
  method: 'GET',
  path: '/companies/{companyId}/employees',
  summary: 'List employees',
  description: 'Employees in creation order, identity numbers masked. Cursor-paginated.',
  auth: { scope: 'payroll:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: PaginationQuery },
  output: z.object({ employees: z.array(Employee) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { limit: 50 }, response: { employees: [employeeExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { employees, pagination } = await list(ctx, params.companyId, query);
    return { data: { employees }, pagination };
  },
});
