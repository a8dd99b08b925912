import type { OperationContext } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';

/** The media type both files answer with (GET …/vat-returns/{id} and …/agis/{id} with this Accept). */
export const XML_MEDIA_TYPE = 'application/xml';

/**
 * The employer's identity as Skatteverket's files write it. A company's organisation number is
 * ten digits (NNNNNN-NNNN); a sole trader files under the owner's personal identity number, twelve
 * digits with the century. Anything else cannot be filed: FILING_INCOMPLETE names it.
 */
export async function filingIdentity(ctx: OperationContext, companyId: string): Promise<{ ten: string; twelve: string; dashed: string }> {
  const company = await ctx.db.company.findFirst({ where: { id: companyId }, select: { orgNumber: true } });
  const digits = (company?.orgNumber ?? '').replace(/[-\s]/g, '');
  if (/^\d{10}$/.test(digits)) return { ten: digits, twelve: `16${digits}`, dashed: `${digits.slice(0, 6)}-${digits.slice(6)}` };
  if (/^(19|20)\d{10}$/.test(digits)) return { ten: digits.slice(2), twelve: digits, dashed: `${digits.slice(0, 8)}-${digits.slice(8)}` };
  if (/^16\d{10}$/.test(digits)) return { ten: digits.slice(2), twelve: digits, dashed: `${digits.slice(2, 8)}-${digits.slice(8)}` };
  throw new DomainError('FILING_INCOMPLETE', {
    message: "The company's organisation number is not ten digits (NNNNNN-NNNN), so no file can name the employer.",
    details: [{ path: 'company.org_number', message: 'Ten digits, or twelve for a sole trader, e.g. 556677-8899.' }],
  });
}
