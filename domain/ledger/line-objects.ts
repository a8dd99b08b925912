import type { OperationContext } from '../context.ts';
import { DomainError, type ErrorCode, type ErrorDetail } from '../kernel/errors.ts';
import type { LineObject } from './dimension-schemas.ts';

/**
 * The objects on a draft's lines: checked in one query (the dimension exists, the object exists
 * in it and is active, all in this company), then written in one statement. The composite
 * foreign keys refuse another company's object whatever this code does; the check is here to
 * name the line.
 */

interface Resolved {
  dimension_number: number;
  object_code: string;
  dimension_exists: boolean;
  active: boolean | null;
}

const pairs = (lineObjects: readonly (readonly LineObject[])[]) => {
  const dimensions: number[] = [];
  const codes: string[] = [];
  for (const objects of lineObjects) {
    for (const object of objects) {
      dimensions.push(object.dimension);
      codes.push(object.object);
    }
  }
  return { dimensions, codes };
};

const keyOf = (dimension: number, code: string): string => `${dimension}\u0000${code}`;

/** Refuses unknown dimensions, unknown objects and inactive objects, each naming its line; locks the objects until commit. */
export async function resolveLineObjects(ctx: OperationContext, companyId: string, lineObjects: readonly (readonly LineObject[])[]): Promise<void> {
  const { dimensions, codes } = pairs(lineObjects);
  if (dimensions.length === 0) return;
  // FOR SHARE on the objects keeps a concurrent deactivation from slipping in before the insert.
  const rows = await ctx.db.$queryRaw<Resolved[]>`
    SELECT p.dimension_number, p.object_code, d.number IS NOT NULL AS dimension_exists, o.active
      FROM unnest(${dimensions}::integer[], ${codes}::text[]) AS p(dimension_number, object_code)
      LEFT JOIN dimensions d ON d.company_id = ${companyId}::uuid AND d.number = p.dimension_number AND d.import_id IS NULL
      LEFT JOIN LATERAL (SELECT active FROM dimension_objects
                          WHERE company_id = ${companyId}::uuid AND dimension_number = p.dimension_number AND code = p.object_code AND import_id IS NULL
                            FOR SHARE) o ON true`;
  const byKey = new Map(rows.map((row) => [keyOf(row.dimension_number, row.object_code), row]));
  const problems: Record<'DIMENSION_UNKNOWN' | 'OBJECT_UNKNOWN' | 'OBJECT_INACTIVE', ErrorDetail[]> = {
    DIMENSION_UNKNOWN: [],
    OBJECT_UNKNOWN: [],
    OBJECT_INACTIVE: [],
  };
  lineObjects.forEach((objects, lineIndex) => {
    objects.forEach((object, objectIndex) => {
      const path = `body.lines.${lineIndex}.objects.${objectIndex}`;
      const row = byKey.get(keyOf(object.dimension, object.object));
      if (!row?.dimension_exists) problems.DIMENSION_UNKNOWN.push({ path: `${path}.dimension`, message: `Dimension ${object.dimension} does not exist.` });
      else if (row.active === null)
        problems.OBJECT_UNKNOWN.push({ path: `${path}.object`, message: `Dimension ${object.dimension} has no object "${object.object}".` });
      else if (!row.active)
        problems.OBJECT_INACTIVE.push({ path: `${path}.object`, message: `Object "${object.object}" of dimension ${object.dimension} is inactive.` });
    });
  });
  for (const code of Object.keys(problems) as (keyof typeof problems)[]) {
    const details = problems[code];
    if (details.length > 0) throw new DomainError(code satisfies ErrorCode, { message: details.map((d) => `${d.path}: ${d.message}`).join('; '), details });
  }
}

/** Writes the objects of a new draft's lines (line numbers from 1, in order). */
export async function insertLineObjects(
  ctx: OperationContext,
  companyId: string,
  entryId: string,
  lineObjects: readonly (readonly LineObject[])[],
): Promise<void> {
  const data = lineObjects.flatMap((objects, index) =>
    objects.map((object) => ({ companyId, entryId, lineNo: index + 1, dimensionNumber: object.dimension, objectCode: object.object })),
  );
  if (data.length > 0) await ctx.db.journalLineObject.createMany({ data });
}
