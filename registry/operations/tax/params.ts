import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';

export const AgiParams = z.object({ companyId: CompanyId, agiId: z.uuid().describe('Declaration id (uuid), from listAgis.') });
export const VatParams = z.object({ companyId: CompanyId, vatReturnId: z.uuid().describe('VAT return id (uuid), from listVatReturns.') });
