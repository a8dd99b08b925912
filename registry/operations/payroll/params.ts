import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { salaryRunExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';

export const EmployeeParams = z.object({ companyId: CompanyId, employeeId: z.uuid().describe('Employee id (uuid), from listEmployees.') });
export const RunParams = z.object({ companyId: CompanyId, salaryRunId: z.uuid().describe('Salary run id (uuid), from listSalaryRuns.') });

/** The example salary run's path, for the salary-run operations' worked examples. */
export const runParams = { companyId: COMPANY_ID, salaryRunId: salaryRunExample.id };
