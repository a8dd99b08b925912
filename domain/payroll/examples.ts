import type { z } from 'zod';
import type { Agi, Employee, SalaryRun } from './schemas.ts';
import { COMPANY_ID } from '../ledger/examples.ts';

/** Realistic payroll examples (fictitious test identity numbers), shown by OpenAPI, docs and the event catalogue. */

export const EMPLOYEE_ID = '5b7c2e94-1a3d-4f60-8e2b-9c4d7a1f3e58';

export const employeeExample: z.input<typeof Employee> = {
  id: EMPLOYEE_ID,
  company_id: COMPANY_ID,
  name: 'Anna Lindqvist',
  personal_identity_number: '19811218-****',
  employment_start: '2024-03-01',
  employment_end: null,
  monthly_salary: 4_200_000,
  tax_rate: 30,
  tax_amount: null,
  specification_number: 1,
  workplace_address: 'Storgatan 1',
  workplace_city: 'Malmö',
  created_at: '2024-02-20T09:00:00.000Z',
  updated_at: '2026-01-10T09:00:00.000Z',
};

export const salaryRunExample: z.input<typeof SalaryRun> = {
  id: '2d8a4f6c-1e3b-4a97-b0c5-7f2e9d1a4b83',
  company_id: COMPANY_ID,
  period: '2026-11',
  pay_date: '2026-11-25',
  status: 'draft',
  employee_count: 1,
  gross: 4_200_000,
  tax: 1_260_000,
  contributions: 1_319_640,
  net: 2_940_000,
  currency: 'SEK',
  lines: [
    {
      employee_id: EMPLOYEE_ID,
      name: 'Anna Lindqvist',
      personal_identity_number: '19811218-****',
      gross: 4_200_000,
      tax: 1_260_000,
      contributions: 1_319_640,
      contribution_rate: 31.42,
      net: 2_940_000,
    },
  ],
  journal_entry_id: null,
  approved_at: null,
  booked_at: null,
  cancelled_at: null,
  created_at: '2026-11-20T08:00:00.000Z',
};

export const AGI_CONTACT = { name: 'Karin Ek', phone: '040-123 45 67', email: 'lon@exempel.se' };

export const agiExample: z.input<typeof Agi> = {
  id: '7b1e5c3a-9d2f-4068-a4e7-3c8b0f6d2a19',
  company_id: COMPANY_ID,
  period: '2026-11',
  version: 1,
  status: 'generated',
  gross: 4_200_000,
  tax: 1_260_000,
  contributions: 1_319_640,
  // FK487: 42 000 kr × 31,42 % = 13 196,40 kr, öre dropped.
  declared: { tax: 1_260_000, contributions: 1_319_600 },
  currency: 'SEK',
  individuals: [
    {
      employee_id: EMPLOYEE_ID,
      name: 'Anna Lindqvist',
      personal_identity_number: '19811218-****',
      specification_number: 1,
      gross: 4_200_000,
      tax: 1_260_000,
      contributions: 1_319_640,
      change: 'new',
    },
  ],
  corrects_id: null,
  generated_at: '2026-12-02T08:00:00.000Z',
  submitted_at: null,
};
