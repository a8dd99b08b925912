import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { AccountNumber } from '../../../domain/ledger/schemas.ts';
import { DimensionNumberParam, ObjectCode } from '../../../domain/ledger/dimension-schemas.ts';

export const AccountParams = z.object({ companyId: CompanyId, accountNumber: AccountNumber });
export const PeriodParams = z.object({
  companyId: CompanyId,
  periodId: z.uuid().describe('Period id (uuid), from listPeriods.'),
});
export const EntryParams = z.object({
  companyId: CompanyId,
  entryId: z.uuid().describe('Journal entry id (uuid), from listJournalEntries or createJournalEntry.'),
});
export const DimensionParams = z.object({ companyId: CompanyId, dimensionNumber: DimensionNumberParam });
export const DimensionObjectParams = DimensionParams.extend({ objectCode: ObjectCode.describe('Object code, from listDimensionObjects.') });
