import { z } from 'zod';
import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { DomainError } from '../kernel/errors.ts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage, type PaginationMeta, type PaginationQuery } from '../kernel/pagination.ts';
import {
  Dimension,
  type DimensionCreateBody,
  DimensionObject,
  type DimensionObjectCreateBody,
  type DimensionListQuery,
  DimensionNumber,
  type DimensionObjectListQuery,
  type DimensionObjectUpdateBody,
  type DimensionUpdateBody,
  dimensionKind,
} from './dimension-schemas.ts';

/**
 * A company's dimensions and their objects (SIE 4B #DIM, #UNDERDIM, #OBJEKT). A dimension is
 * addressed by its number and an object by (dimension, code); both identities are fixed (the
 * database refuses a change), names and an object's active flag are not.
 */

interface DimensionRow {
  companyId: string;
  number: number;
  name: string;
  parentNumber: number | null;
  createdAt: Date;
  updatedAt: Date;
}

interface ObjectRow {
  companyId: string;
  dimensionNumber: number;
  code: string;
  name: string;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const toDimension = (row: DimensionRow): Dimension =>
  Dimension.parse({
    company_id: row.companyId,
    number: row.number,
    name: row.name,
    kind: dimensionKind(row.number),
    parent_number: row.parentNumber,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  });

const toObject = (row: ObjectRow): DimensionObject =>
  DimensionObject.parse({
    company_id: row.companyId,
    dimension: row.dimensionNumber,
    code: row.code,
    name: row.name,
    active: row.active,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  });

const dimensionNotFound = (number: number): DomainError => new DomainError('NOT_FOUND', { message: `No dimension ${number} in this company.` });

const DIMENSION_LIST = 'dimensions';
const DimensionKey = z.object({ number: DimensionNumber });

/** Dimensions in number order (unique per company), a page at a time. */
export async function listDimensions(
  ctx: OperationContext,
  companyId: string,
  query: DimensionListQuery,
): Promise<{ dimensions: Dimension[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'companies:read');
  const after = decodeKeysetCursor(DIMENSION_LIST, query.cursor, DimensionKey);
  const rows = await ctx.db.dimension.findMany({
    where: {
      companyId,
      importId: null,
      ...(query.parent_number !== undefined && { parentNumber: Number(query.parent_number) }),
      ...(after && { number: { gt: after.number } }),
    },
    orderBy: { number: 'asc' },
    take: query.limit + 1,
  });
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(DIMENSION_LIST, { number: last.number }));
  return { dimensions: page.map(toDimension), pagination };
}

export async function createDimension(ctx: OperationContext, companyId: string, body: DimensionCreateBody): Promise<Dimension> {
  requireScope(ctx, 'companies:write');
  return withTransaction(ctx, async (tx) => {
    if (body.parent_number !== undefined) {
      const parent = await tx.db.dimension.findFirst({ where: { companyId, number: body.parent_number, importId: null }, select: { number: true } });
      if (!parent) {
        throw new DomainError('DIMENSION_UNKNOWN', {
          message: `The parent dimension ${body.parent_number} does not exist.`,
          details: [{ path: 'body.parent_number', message: 'Create the parent dimension first.' }],
        });
      }
    }
    try {
      const row = await tx.db.dimension.create({ data: { companyId, number: body.number, name: body.name, parentNumber: body.parent_number ?? null } });
      return toDimension(row);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new DomainError('DIMENSION_EXISTS', {
          message: `Dimension ${body.number} already exists.`,
          details: [{ path: 'body.number', message: 'Dimension numbers are unique per company.' }],
        });
      }
      throw error;
    }
  });
}

/** Renames a dimension; its number and parent are its identity. */
export async function updateDimension(ctx: OperationContext, companyId: string, number: number, body: DimensionUpdateBody): Promise<Dimension> {
  requireScope(ctx, 'companies:write');
  const updated = await ctx.db.dimension.updateManyAndReturn({
    where: { companyId, number, importId: null },
    data: { name: body.name, updatedAt: ctx.services.now() },
  });
  const [row] = updated;
  if (!row) throw dimensionNotFound(number);
  return toDimension(row);
}

async function requireDimension(ctx: OperationContext, companyId: string, number: number): Promise<void> {
  const found = await ctx.db.dimension.findFirst({ where: { companyId, number, importId: null }, select: { number: true } });
  if (!found) throw dimensionNotFound(number);
}

const OBJECT_LIST = 'dimension_objects';
const ObjectKey = z.object({ code: z.string() });

/** A dimension's objects in code order (byte order, as SQL "C" collation sorts), cursor-paginated. */
export async function listDimensionObjects(
  ctx: OperationContext,
  companyId: string,
  dimension: number,
  query: DimensionObjectListQuery & PaginationQuery,
): Promise<{ objects: DimensionObject[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'companies:read');
  await requireDimension(ctx, companyId, dimension);
  const after = decodeKeysetCursor(OBJECT_LIST, query.cursor, ObjectKey);
  const rows = await ctx.db.$queryRaw<ObjectRow[]>`
    SELECT company_id AS "companyId", dimension_number AS "dimensionNumber", code, name, active,
           created_at AS "createdAt", updated_at AS "updatedAt"
      FROM dimension_objects
     WHERE company_id = ${companyId}::uuid AND dimension_number = ${dimension}::integer AND import_id IS NULL
       AND (${query.active ?? null}::boolean IS NULL OR active = ${query.active ?? null}::boolean)
       AND (${after?.code ?? null}::text IS NULL OR code COLLATE "C" > ${after?.code ?? null}::text COLLATE "C")
     ORDER BY code COLLATE "C"
     LIMIT ${query.limit + 1}`;
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(OBJECT_LIST, { code: last.code }));
  return { objects: page.map(toObject), pagination };
}

export async function createDimensionObject(
  ctx: OperationContext,
  companyId: string,
  dimension: number,
  body: DimensionObjectCreateBody,
): Promise<DimensionObject> {
  requireScope(ctx, 'companies:write');
  return withTransaction(ctx, async (tx) => {
    await requireDimension(tx, companyId, dimension);
    try {
      const row = await tx.db.dimensionObject.create({
        data: { companyId, dimensionNumber: dimension, code: body.code, name: body.name, active: body.active ?? true },
      });
      return toObject(row);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new DomainError('OBJECT_EXISTS', {
          message: `Dimension ${dimension} already has an object "${body.code}".`,
          details: [{ path: 'body.code', message: 'Object codes are unique within a dimension.' }],
        });
      }
      throw error;
    }
  });
}

/** Renames or (de)activates an object; its code is its identity. */
export async function updateDimensionObject(
  ctx: OperationContext,
  companyId: string,
  dimension: number,
  code: string,
  body: DimensionObjectUpdateBody,
): Promise<DimensionObject> {
  requireScope(ctx, 'companies:write');
  const [row] = await ctx.db.dimensionObject.updateManyAndReturn({
    where: { companyId, dimensionNumber: dimension, code, importId: null },
    data: {
      ...(body.name !== undefined && { name: body.name }),
      ...(body.active !== undefined && { active: body.active }),
      updatedAt: ctx.services.now(),
    },
  });
  if (!row) throw new DomainError('NOT_FOUND', { message: `No object "${code}" in dimension ${dimension} of this company.` });
  return toObject(row);
}
