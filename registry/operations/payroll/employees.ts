import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { Employee, EmployeeCreateBody, EmployeeUpdateBody } from '../../../domain/payroll/schemas.ts';
import { createEmployee as create, getEmployee as get, listEmployees as list, updateEmployee as update } from '../../../domain/payroll/employees.ts';
import { EMPLOYEE_ID, employeeExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { PaginationQuery } from '../../../domain/kernel/pagination.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';

const CompanyParams = z.object({ companyId: CompanyId });
const EmployeeParams = z.object({ companyId: CompanyId, employeeId: z.uuid().describe('Employee id (uuid), from listEmployees.') });
const PAYROLL_WRITE = { scope: 'payroll:read', also: ['companies:write'] } as const;
const write = {
  group: 'payroll',
  auth: PAYROLL_WRITE,
  risk: 'L2',
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  auditTarget: 'employee',
  output: Employee,
  surfaces: ['api', 'mcp', 'cli'],
} as const;

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
    },
    response: employeeExample,
  },
  handler: async (ctx, { params, body }) => ({ data: await create(ctx, params.companyId, body) }),
});

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
