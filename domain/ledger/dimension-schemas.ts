import { z } from 'zod';
import { PaginationQuery } from '../kernel/pagination.ts';

/**
 * Dimensions and objects (SIE 4B: #DIM, #UNDERDIM, #OBJEKT; "SIE filformat, utgåva 4B",
 * 2008-09-30, §5 and the object lists of #TRANS): a company's cost centres, projects and own
 * dimensions, and the objects a journal line carries. A dimension is addressed by its number, an
 * object by (dimension, code), as SIE files name them.
 */

/** The dimension numbers SIE 4B assigns; 3-5 and 11-19 it keeps for later; 20 and up are free. */
export const SIE_DIMENSIONS = {
  1: { kind: 'cost_centre', name: 'Kostnadsställe' },
  2: { kind: 'cost_bearer', name: 'Kostnadsbärare' },
  6: { kind: 'project', name: 'Projekt' },
  7: { kind: 'employee', name: 'Anställd' },
  8: { kind: 'customer', name: 'Kund' },
  9: { kind: 'supplier', name: 'Leverantör' },
  10: { kind: 'invoice', name: 'Faktura' },
} as const;

/** Below this number SIE reserves the dimensions; from it on they are the company's own. */
export const FIRST_CUSTOM_DIMENSION = 20;
export const MAX_DIMENSION_NUMBER = 999_999;

export const DIMENSION_KINDS = [...Object.values(SIE_DIMENSIONS).map((entry) => entry.kind), 'reserved', 'custom'] as const;
export type DimensionKind = (typeof DIMENSION_KINDS)[number];

/** What SIE says a dimension number means. */
export function dimensionKind(number: number): DimensionKind {
  const assigned = (SIE_DIMENSIONS as Record<number, { kind: DimensionKind } | undefined>)[number];
  if (assigned) return assigned.kind;
  return number < FIRST_CUSTOM_DIMENSION ? 'reserved' : 'custom';
}

export const DimensionNumber = z.number().int().min(1).max(MAX_DIMENSION_NUMBER).describe('SIE dimension number: 1 cost centre, 6 project, 20+ your own.');

/** A path parameter: text on every surface, as account numbers are (handlers read it with Number). */
export const DimensionNumberParam = z
  .string()
  .regex(/^[1-9]\d{0,5}$/, `A dimension number, 1-${MAX_DIMENSION_NUMBER}.`)
  .describe('Dimension number, e.g. "1", from listDimensions.');

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Bare (no description, the character rule as a refinement): it sits on every line of an entry's tool schema. */
const Code = z
  .string()
  .min(1)
  .max(100)
  .refine((code) => !CONTROL.test(code), 'No control characters.');

export const ObjectCode = Code.describe('Object code within its dimension, e.g. "Nord" or "0001"; kept exactly.');

const Name = z.string().trim().min(1).max(200);
const Timestamp = z.iso.datetime();

export const Dimension = z
  .object({
    company_id: z.uuid(),
    number: DimensionNumber,
    name: z.string(),
    kind: z.enum(DIMENSION_KINDS).describe("SIE's meaning of the number."),
    parent_number: DimensionNumber.nullable().describe('Super-dimension of a sub-dimension (#UNDERDIM).'),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .describe('A dimension (SIE #DIM), e.g. cost centre or project.');
export type Dimension = z.infer<typeof Dimension>;

export const DimensionCreateBody = z.strictObject({
  number: DimensionNumber.refine((number) => dimensionKind(number) !== 'reserved', {
    message: `SIE 4B reserves 3-5 and 11-19; use 1, 2, 6-10 or ${FIRST_CUSTOM_DIMENSION}+.`,
  }),
  name: Name.describe('e.g. "Kostnadsställe".'),
  parent_number: DimensionNumber.optional().describe('Makes it a sub-dimension of this one; fixed once set.'),
});
export type DimensionCreateBody = z.infer<typeof DimensionCreateBody>;

export const DimensionUpdateBody = z.strictObject({ name: Name });
export type DimensionUpdateBody = z.infer<typeof DimensionUpdateBody>;

export const DimensionObject = z
  .object({
    company_id: z.uuid(),
    dimension: DimensionNumber,
    code: ObjectCode,
    name: z.string(),
    active: z.boolean().describe('Inactive objects keep their history but take no new postings.'),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .describe('An object of a dimension (SIE #OBJEKT), e.g. one cost centre.');
export type DimensionObject = z.infer<typeof DimensionObject>;

export const DimensionObjectCreateBody = z.strictObject({
  code: ObjectCode,
  name: Name.describe('e.g. "Kontor Nord".'),
  active: z.boolean().optional().describe('Default true.'),
});
export type DimensionObjectCreateBody = z.infer<typeof DimensionObjectCreateBody>;

export const DimensionObjectUpdateBody = z
  .strictObject({ name: Name.optional(), active: z.boolean().optional() })
  .refine((body) => Object.keys(body).length > 0, { message: 'Provide name, active or both.' });
export type DimensionObjectUpdateBody = z.infer<typeof DimensionObjectUpdateBody>;

export const DimensionObjectListQuery = z.strictObject({
  active: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .describe('true or false.'),
});
export type DimensionObjectListQuery = z.infer<typeof DimensionObjectListQuery>;

export const DimensionListQuery = z
  .strictObject({ parent_number: DimensionNumberParam.optional().describe('Only the sub-dimensions of this dimension.') })
  .extend(PaginationQuery.shape);
export type DimensionListQuery = z.infer<typeof DimensionListQuery>;

/** One object on a journal line: what SIE writes as `dim "code"` in the object list of #TRANS. */
export const LineObject = z.strictObject({ dimension: z.number().int().min(1).max(MAX_DIMENSION_NUMBER), object: Code });
export type LineObject = z.infer<typeof LineObject>;

/** More than any real file uses (SIE programs write one to three), few enough to keep a line small. */
export const MAX_OBJECTS_PER_LINE = 20;

export const LineObjects = z
  .array(LineObject)
  .max(MAX_OBJECTS_PER_LINE)
  .superRefine((objects, issue) => {
    const seen = new Set<number>();
    objects.forEach((object, index) => {
      if (seen.has(object.dimension)) {
        issue.addIssue({ code: 'custom', path: [index, 'dimension'], message: `At most one object per dimension; ${object.dimension} is given twice.` });
      }
      seen.add(object.dimension);
    });
  })
  .describe('At most one per dimension, e.g. {"dimension":1,"object":"Nord"}; see listDimensions.');
