import { z } from 'zod';
import { CompanyId } from '../../domain/companies/schemas.ts';

/** The path parameter of every company-scoped operation. */
export const CompanyParams = z.object({ companyId: CompanyId });
