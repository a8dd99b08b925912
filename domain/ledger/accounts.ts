import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { emitEvent, previousAttributes } from '../events/emit.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { z } from 'zod';
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage, type PaginationMeta } from '../kernel/pagination.ts';
import { Account, AccountNumber, type AccountCreateBody, type AccountListQuery, type AccountUpdateBody } from './schemas.ts';

interface AccountRow {
  id: string;
  companyId: string;
  number: string;
  name: string;
  type: string;
  vatCode: string | null;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const toAccount = (row: AccountRow): Account =>
  Account.parse({
    id: row.id,
    company_id: row.companyId,
    number: row.number,
    name: row.name,
    type: row.type,
    vat_code: row.vatCode,
    active: row.active,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  });

const accountNotFound = (number: string): DomainError => new DomainError('NOT_FOUND', { message: `No account ${number} in this company's chart of accounts.` });

const LIST_NAME = 'accounts';
const ListKey = z.object({ number: AccountNumber });

/** The chart in number order, a page at a time (keyset on the number, unique per company). */
export async function listAccounts(
  ctx: OperationContext,
  companyId: string,
  query: AccountListQuery,
): Promise<{ accounts: Account[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'companies:read');
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const rows = await ctx.db.account.findMany({
    where: {
      companyId,
      importId: null,
      AND: [
        ...(query.number_from ? [{ number: { gte: query.number_from } }] : []),
        ...(query.number_to ? [{ number: { lte: query.number_to } }] : []),
        ...(after ? [{ number: { gt: after.number } }] : []),
      ],
      ...(query.type && { type: query.type }),
      ...(query.active !== undefined && { active: query.active }),
    },
    orderBy: { number: 'asc' },
    take: query.limit + 1,
  });
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(LIST_NAME, { number: last.number }));
  return { accounts: page.map(toAccount), pagination };
}

export async function createAccount(ctx: OperationContext, companyId: string, body: AccountCreateBody): Promise<Account> {
  requireScope(ctx, 'companies:write');
  return withTransaction(ctx, async (tx) => {
    let row: AccountRow;
    try {
      row = await tx.db.account.create({
        data: { companyId, number: body.number, name: body.name, vatCode: body.vat_code ?? null, active: body.active ?? true },
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new DomainError('ACCOUNT_EXISTS', {
          message: `Account ${body.number} already exists.`,
          details: [{ path: 'body.number', message: 'Account numbers are unique per company.' }],
        });
      }
      throw error;
    }
    const account = toAccount(row);
    await emitEvent(tx, companyId, 'account.created', account, null);
    return account;
  });
}

/** Changes name, active and VAT code; the number (and so the type) is the account's identity. */
export async function updateAccount(ctx: OperationContext, companyId: string, number: string, body: AccountUpdateBody): Promise<Account> {
  requireScope(ctx, 'companies:write');
  return withTransaction(ctx, async (tx) => {
    // Locks the row so previous_attributes are exactly what this update replaced.
    const [before] = await tx.db.$queryRaw<AccountRow[]>`
      SELECT id, company_id AS "companyId", number, name, type, vat_code AS "vatCode", active,
             created_at AS "createdAt", updated_at AS "updatedAt"
        FROM accounts WHERE company_id = ${companyId}::uuid AND number = ${number} AND import_id IS NULL FOR UPDATE`;
    if (!before) throw accountNotFound(number);
    const updated = toAccount(
      await tx.db.account.update({
        where: { id: before.id },
        data: {
          ...(body.name !== undefined && { name: body.name }),
          ...(body.active !== undefined && { active: body.active }),
          ...(body.vat_code !== undefined && { vatCode: body.vat_code }),
          updatedAt: tx.services.now(),
        },
      }),
    );
    const { updated_at: _before, ...old } = toAccount(before);
    const { updated_at: _after, ...now } = updated;
    const changed = previousAttributes(old, now);
    if (changed) await emitEvent(tx, companyId, 'account.updated', updated, changed);
    return updated;
  });
}
