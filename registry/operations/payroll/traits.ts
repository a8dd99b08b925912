import { Employee, SalaryRun } from '../../../domain/payroll/schemas.ts';
import { RunParams } from './params.ts';

/** Payroll writes need payroll:read (pay is personal data) besides companies:write. */
export const PAYROLL_WRITE = { scope: 'payroll:read', also: ['companies:write'] } as const;

/** What creating and updating an employee share. */
export const write = {
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

/** What the salary run's state changes (approve, book, cancel) share. */
export const transition = {
  group: 'payroll',
  method: 'POST',
  auth: PAYROLL_WRITE,
  idempotent: false,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'salary_run',
  input: { params: RunParams },
  output: SalaryRun,
  status: 200,
  surfaces: ['api', 'mcp', 'cli'],
} as const;
