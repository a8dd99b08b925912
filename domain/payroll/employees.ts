import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetTimestampSql, type PaginationMeta, type PaginationQuery, keysetPage } from '../kernel/pagination.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { fromSqlDate, toSqlDate } from '../ledger/schemas.ts';
import { pinDigestOf } from './pin-digest.ts';
import { z } from 'zod';
import type { Employee, EmployeeCreateBody, EmployeeUpdateBody } from './schemas.ts';
import { booksInstant } from '../kernel/books-dates.ts';

/** Payroll data is personal data: every payroll verb needs payroll:read, writes companies:write too. */
export const PAYROLL_READ = 'payroll:read';

export interface EmployeeRow {
  id: string;
  companyId: string;
  name: string;
  pinEncrypted: string;
  pinMasked: string;
  birthDate: Date;
  employmentStart: Date;
  employmentEnd: Date | null;
  monthlySalary: bigint;
  taxRateHundredths: number | null;
  taxAmount: bigint | null;
  specificationNumber: number;
  workplaceAddress: string | null;
  workplaceCity: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** YYYYMMDD-NNNN → YYYYMMDD-****, the only form that leaves getEmployee. */
export const maskPin = (pin: string): string => `${pin.slice(0, 8)}-****`;

/** The birth date inside the number; coordination numbers add 60 to the day. */
export const birthDateOf = (pin: string): string => {
  const day = Number(pin.slice(6, 8));
  return `${pin.slice(0, 4)}-${pin.slice(4, 6)}-${String(day > 60 ? day - 60 : day).padStart(2, '0')}`;
};

export function toEmployee(row: EmployeeRow, pin: string): Employee {
  return {
    id: row.id,
    company_id: row.companyId,
    name: row.name,
    personal_identity_number: pin,
    employment_start: fromSqlDate(row.employmentStart),
    employment_end: row.employmentEnd ? fromSqlDate(row.employmentEnd) : null,
    monthly_salary: Number(row.monthlySalary),
    tax_rate: row.taxRateHundredths === null ? null : row.taxRateHundredths / 100,
    tax_amount: row.taxAmount === null ? null : Number(row.taxAmount),
    specification_number: row.specificationNumber,
    workplace_address: row.workplaceAddress,
    workplace_city: row.workplaceCity,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

const masked = (row: EmployeeRow): Employee => toEmployee(row, row.pinMasked);

const employeeNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such employee in this company.' });

const pinColumns = (ctx: OperationContext, pin: string) => ({
  pinEncrypted: ctx.services.secretBox.encrypt(pin),
  pinMasked: maskPin(pin),
  pinDigest: pinDigestOf(ctx.services.secretBox, pin),
  birthDate: toSqlDate(birthDateOf(pin)),
});

/** 409 naming the employee who already has the number, never the number itself. */
const pinTaken = (holderId?: string): DomainError =>
  new DomainError('EMPLOYEE_EXISTS', {
    message: holderId
      ? `Employee ${holderId} of this company already has this personal identity number.`
      : 'Another employee of this company already has this personal identity number.',
    details: [{ path: 'body.personal_identity_number', message: 'Already registered for another employee of this company.' }],
  });

/**
 * A company registers a person once (the AGI must declare each payee once): the unique index on
 * the digest decides; the read before it only names who holds the number.
 */
async function assertPinFree(ctx: OperationContext, companyId: string, pin: string, self?: string): Promise<void> {
  const [holder] = await ctx.db.$queryRaw<{ id: string }[]>`
    SELECT id FROM employees WHERE company_id = ${companyId}::uuid AND pin_digest = ${pinDigestOf(ctx.services.secretBox, pin)}
       AND id IS DISTINCT FROM ${self ?? null}::uuid`;
  if (holder) throw pinTaken(holder.id);
}

async function writeEmployee<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    // Only the digest index can refuse an employee write as a duplicate.
    if (isUniqueViolation(error)) throw pinTaken();
    throw error;
  }
}

const workplaceColumns = (body: { workplace_address?: string | null; workplace_city?: string | null }) => ({
  ...(body.workplace_address !== undefined && { workplaceAddress: body.workplace_address }),
  ...(body.workplace_city !== undefined && { workplaceCity: body.workplace_city }),
});

export async function createEmployee(ctx: OperationContext, companyId: string, body: EmployeeCreateBody): Promise<Employee> {
  requireScope(ctx, PAYROLL_READ);
  requireScope(ctx, 'companies:write');
  return withTransaction(ctx, async (tx) => {
    await assertPinFree(tx, companyId, body.personal_identity_number);
    const row = await writeEmployee(() =>
      tx.db.employee.create({
        data: {
          companyId,
          name: body.name,
          ...pinColumns(tx, body.personal_identity_number),
          employmentStart: toSqlDate(body.employment_start),
          employmentEnd: body.employment_end ? toSqlDate(body.employment_end) : null,
          monthlySalary: BigInt(body.monthly_salary),
          taxRateHundredths: body.tax_rate === undefined ? null : Math.round(body.tax_rate * 100),
          taxAmount: body.tax_amount === undefined ? null : BigInt(body.tax_amount),
          ...workplaceColumns(body),
        },
      }),
    );
    return masked(row);
  });
}

/** The one read that shows the full personal identity number. */
export async function getEmployee(ctx: OperationContext, companyId: string, employeeId: string): Promise<Employee> {
  requireScope(ctx, PAYROLL_READ);
  const row = await ctx.db.employee.findFirst({ where: { companyId, id: employeeId } });
  if (!row) throw employeeNotFound();
  return toEmployee(row, ctx.services.secretBox.decrypt(row.pinEncrypted));
}

const LIST_NAME = 'employees';
const ListKey = z.object({ at: booksInstant({ precision: 6 }), id: z.uuid() });

export async function listEmployees(
  ctx: OperationContext,
  companyId: string,
  query: PaginationQuery,
): Promise<{ employees: Employee[]; pagination: PaginationMeta }> {
  requireScope(ctx, PAYROLL_READ);
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const rows = await ctx.db.$queryRawUnsafe<(EmployeeRow & { key: string })[]>(
    `SELECT id, company_id AS "companyId", name, pin_encrypted AS "pinEncrypted", pin_masked AS "pinMasked",
            birth_date AS "birthDate", employment_start AS "employmentStart", employment_end AS "employmentEnd",
            monthly_salary AS "monthlySalary", tax_rate_hundredths AS "taxRateHundredths", tax_amount AS "taxAmount",
            specification_number AS "specificationNumber", workplace_address AS "workplaceAddress", workplace_city AS "workplaceCity",
            created_at AS "createdAt", updated_at AS "updatedAt", ${keysetTimestampSql('created_at')} AS key
       FROM employees
      WHERE company_id = $1::uuid AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::uuid))
      ORDER BY created_at, id
      LIMIT $4`,
    companyId,
    after?.at ?? null,
    after?.id ?? null,
    query.limit + 1,
  );
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(LIST_NAME, { at: last.key, id: last.id }));
  return { employees: page.map(masked), pagination };
}

export async function updateEmployee(ctx: OperationContext, companyId: string, employeeId: string, body: EmployeeUpdateBody): Promise<Employee> {
  requireScope(ctx, PAYROLL_READ);
  requireScope(ctx, 'companies:write');
  return withTransaction(ctx, async (tx) => {
    if (body.personal_identity_number !== undefined) await assertPinFree(tx, companyId, body.personal_identity_number, employeeId);
    const updated = await writeEmployee(() =>
      tx.db.employee.updateManyAndReturn({
        where: { companyId, id: employeeId },
        data: {
          ...(body.name !== undefined && { name: body.name }),
          ...(body.personal_identity_number !== undefined && pinColumns(tx, body.personal_identity_number)),
          ...(body.employment_start !== undefined && { employmentStart: toSqlDate(body.employment_start) }),
          ...(body.employment_end !== undefined && { employmentEnd: body.employment_end === null ? null : toSqlDate(body.employment_end) }),
          ...(body.monthly_salary !== undefined && { monthlySalary: BigInt(body.monthly_salary) }),
          ...(body.tax_rate !== undefined && { taxRateHundredths: Math.round(body.tax_rate * 100), taxAmount: null }),
          ...(body.tax_amount !== undefined && { taxAmount: BigInt(body.tax_amount), taxRateHundredths: null }),
          ...workplaceColumns(body),
          updatedAt: tx.services.now(),
        },
      }),
    );
    const row = updated[0];
    if (!row) throw employeeNotFound();
    if (row.employmentEnd && row.employmentEnd < row.employmentStart) {
      throw new DomainError('VALIDATION_ERROR', {
        message: 'employment_end is before employment_start.',
        details: [{ path: 'body.employment_end', message: 'Must be on or after employment_start.' }],
      });
    }
    return masked(row);
  });
}
