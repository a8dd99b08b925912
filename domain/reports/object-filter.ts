import { PrismaSql as Prisma } from '../db/client.ts';
import type { OperationContext } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import type { ReportRangeQuery } from './schemas.ts';

/**
 * A report for one object of one dimension (a cost centre, a project): only the committed lines
 * that carry it count, in every sum and every ledger line. Checked before the report reads
 * anything, so an unknown dimension or object is an error, not an empty report.
 */
export interface ObjectFilter {
  dimension: number;
  object: string;
}

const invalid = (path: string, message: string): DomainError =>
  new DomainError('VALIDATION_ERROR', { message: `${path}: ${message}`, details: [{ path, message }] });

/** The filter a report query asks for, or null; refuses half of one and objects the company does not have. */
export async function resolveObjectFilter(
  ctx: OperationContext,
  companyId: string,
  query: Pick<ReportRangeQuery, 'dimension' | 'object'>,
): Promise<ObjectFilter | null> {
  if (query.dimension === undefined && query.object === undefined) return null;
  if (query.dimension === undefined) throw invalid('query.dimension', 'Give dimension with object.');
  if (query.object === undefined) throw invalid('query.object', 'Give object with dimension.');
  const filter = { dimension: Number(query.dimension), object: query.object };
  const [row] = await ctx.db.$queryRaw<{ dimension: boolean; object: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM dimensions WHERE company_id = ${companyId}::uuid AND number = ${filter.dimension}::integer AND import_id IS NULL) AS dimension,
           EXISTS (SELECT 1 FROM dimension_objects
                    WHERE company_id = ${companyId}::uuid AND dimension_number = ${filter.dimension}::integer AND code = ${filter.object} AND import_id IS NULL) AS object`;
  if (!row?.dimension) {
    throw new DomainError('DIMENSION_UNKNOWN', {
      message: `No dimension ${filter.dimension} in this company.`,
      details: [{ path: 'query.dimension', message: 'Use a number from listDimensions.' }],
    });
  }
  if (!row.object) {
    throw new DomainError('OBJECT_UNKNOWN', {
      message: `Dimension ${filter.dimension} has no object "${filter.object}".`,
      details: [{ path: 'query.object', message: 'Use a code from listDimensionObjects.' }],
    });
  }
  return filter;
}

/** `AND` the line `l` carries the filter's object; nothing without a filter. */
export const carriesObject = (filter: ObjectFilter | null): Prisma.Sql =>
  filter === null
    ? Prisma.empty
    : Prisma.sql`AND EXISTS (SELECT 1 FROM journal_line_objects lo
                              WHERE lo.company_id = l.company_id AND lo.entry_id = l.entry_id AND lo.line_no = l.line_no
                                AND lo.dimension_number = ${filter.dimension}::integer AND lo.object_code = ${filter.object})`;
